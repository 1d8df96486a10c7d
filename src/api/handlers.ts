import type { HandlerMap } from './types.ts';
import { startAuthentication } from '../operations/startAuthentication.ts';
import { createStepUpLogin } from '../operations/createStepUpLogin.ts';
import { handleIdpCallback } from '../operations/handleIdpCallback.ts';
import { resumeAuthentication } from '../operations/resumeAuthentication.ts';
import { exchangeAuthenticationHandoff } from '../operations/exchangeAuthenticationHandoff.ts';
import { getLiveness } from '../operations/getLiveness.ts';
import { getReadiness } from '../operations/getReadiness.ts';
import { listPlatforms } from '../operations/listPlatforms.ts';
import { createPlatform } from '../operations/createPlatform.ts';
import { getPlatform } from '../operations/getPlatform.ts';
import { updatePlatform } from '../operations/updatePlatform.ts';
import { deactivatePlatform } from '../operations/deactivatePlatform.ts';
import { activatePlatform } from '../operations/activatePlatform.ts';
import { rotatePlatformCredentials } from '../operations/rotatePlatformCredentials.ts';
import { getPlatformBranding } from '../operations/getPlatformBranding.ts';
import { setPlatformBranding } from '../operations/setPlatformBranding.ts';
import { clearPlatformBranding } from '../operations/clearPlatformBranding.ts';
import { uploadPlatformLogo } from '../operations/uploadPlatformLogo.ts';
import { deletePlatformLogo } from '../operations/deletePlatformLogo.ts';
import { getPlatformLogo } from '../operations/getPlatformLogo.ts';
import { listAuditEvents } from '../operations/listAuditEvents.ts';
import { revokeSession } from '../operations/revokeSession.ts';
import { listSessions } from '../operations/listSessions.ts';
import { revokeOtherSessions } from '../operations/revokeOtherSessions.ts';
import { finishSignOut } from '../operations/finishSignOut.ts';
import { signOut } from '../operations/signOut.ts';
import { signOutBrowser } from '../operations/signOutBrowser.ts';
import { confirmSignOut } from '../operations/confirmSignOut.ts';
import { createSignOutToken } from '../operations/createSignOutToken.ts';
import { receiveBackchannelLogout } from '../operations/receiveBackchannelLogout.ts';
import { requestAvatarUpload } from '../operations/requestAvatarUpload.ts';
import { uploadAvatar } from '../operations/uploadAvatar.ts';
import { confirmAvatarUpload } from '../operations/confirmAvatarUpload.ts';
import { getAvatar } from '../operations/getAvatar.ts';
import { deleteAvatar } from '../operations/deleteAvatar.ts';
import { deleteMyAccount } from '../operations/deleteMyAccount.ts';
import { updateMyProfile } from '../operations/updateMyProfile.ts';
import { getMyProfile } from '../operations/getMyProfile.ts';
import { getMe } from '../operations/getMe.ts';
import { listMyAgreements } from '../operations/listMyAgreements.ts';
import { getPlatformAgreements } from '../operations/getPlatformAgreements.ts';
import { acceptAgreement } from '../operations/acceptAgreement.ts';
import { withdrawAgreement } from '../operations/withdrawAgreement.ts';
import { listDocuments } from '../operations/listDocuments.ts';
import { createDocumentDraft } from '../operations/createDocumentDraft.ts';
import { getDocumentVersion } from '../operations/getDocumentVersion.ts';
import { updateDocumentDraft } from '../operations/updateDocumentDraft.ts';
import { publishDocumentVersion } from '../operations/publishDocumentVersion.ts';
import { listPersonAcceptances } from '../operations/listPersonAcceptances.ts';
import { archiveOnboardingField } from '../operations/archiveOnboardingField.ts';
import { updateOnboardingField } from '../operations/updateOnboardingField.ts';
import { createOnboardingField } from '../operations/createOnboardingField.ts';
import { listOnboardingFields } from '../operations/listOnboardingFields.ts';
import { listRequirementGraces } from '../operations/listRequirementGraces.ts';
import { moveRequirementGraces } from '../operations/moveRequirementGraces.ts';
import { completeOnboarding } from '../operations/completeOnboarding.ts';
import { putOnboardingValues } from '../operations/putOnboardingValues.ts';
import { getOnboardingStatus } from '../operations/getOnboardingStatus.ts';
import { getOnboardingRequirements } from '../operations/getOnboardingRequirements.ts';
import { listAuthenticationMethods } from '../operations/listAuthenticationMethods.ts';
import { changePassword } from '../operations/changePassword.ts';
import { getJwks } from '../operations/getJwks.ts';
import { pollSecurityEvents } from '../operations/pollSecurityEvents.ts';
import { listSecurityEventDeliveries } from '../operations/listSecurityEventDeliveries.ts';
import { getAccountDeletion } from '../operations/getAccountDeletion.ts';
import { startDataExport } from '../operations/startDataExport.ts';
import { listDataExports } from '../operations/listDataExports.ts';
import { getDataExport } from '../operations/getDataExport.ts';
import { createDataExportLink } from '../operations/createDataExportLink.ts';
import { downloadDataExport } from '../operations/downloadDataExport.ts';
import { listMyApps } from '../operations/listMyApps.ts';
import { leavePlatform } from '../operations/leavePlatform.ts';
import { requestSupportAccess } from '../operations/requestSupportAccess.ts';
import { listSupportAccess } from '../operations/listSupportAccess.ts';
import { endSupportAccess } from '../operations/endSupportAccess.ts';
import { listMySupportAccess } from '../operations/listMySupportAccess.ts';
import { answerSupportAccess } from '../operations/answerSupportAccess.ts';
import { endMySupportAccess } from '../operations/endMySupportAccess.ts';

/**
 * operationId → handler, one entry for every operation of the contract. The type
 * makes a missing or unknown operationId a compile error; a test checks the same
 * against the YAML at run time.
 */
export const handlers: HandlerMap = {
  startAuthentication,
  handleIdpCallback,
  resumeAuthentication,
  exchangeAuthenticationHandoff,
  createStepUpLogin,
  signOutBrowser,
  signOut,
  confirmSignOut,
  createSignOutToken,
  finishSignOut,
  receiveBackchannelLogout,
  listSessions,
  revokeSession,
  revokeOtherSessions,
  getJwks,

  getOnboardingRequirements,
  getOnboardingStatus,
  putOnboardingValues,
  completeOnboarding,

  listPlatforms,
  createPlatform,
  getPlatform,
  updatePlatform,
  deactivatePlatform,
  activatePlatform,
  rotatePlatformCredentials,
  listAuditEvents,

  getPlatformBranding,
  setPlatformBranding,
  clearPlatformBranding,
  uploadPlatformLogo,
  deletePlatformLogo,
  getPlatformLogo,

  listOnboardingFields,
  listRequirementGraces,
  moveRequirementGraces,
  createOnboardingField,
  updateOnboardingField,
  archiveOnboardingField,

  listMyAgreements,
  getPlatformAgreements,
  acceptAgreement,
  withdrawAgreement,
  listDocuments,
  createDocumentDraft,
  getDocumentVersion,
  updateDocumentDraft,
  publishDocumentVersion,
  listPersonAcceptances,

  getMe,
  getMyProfile,
  updateMyProfile,
  requestAvatarUpload,
  uploadAvatar,
  confirmAvatarUpload,
  getAvatar,
  deleteAvatar,
  listAuthenticationMethods,
  changePassword,
  deleteMyAccount,

  // Security events to platforms (issue 26)
  pollSecurityEvents,
  listSecurityEventDeliveries,
  getAccountDeletion,

  startDataExport,
  listDataExports,
  getDataExport,
  createDataExportLink,
  downloadDataExport,
  listMyApps,
  leavePlatform,
  requestSupportAccess,
  listSupportAccess,
  endSupportAccess,
  listMySupportAccess,
  answerSupportAccess,
  endMySupportAccess,

  getLiveness,
  getReadiness,
};
