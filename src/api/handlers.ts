import type { HandlerMap } from './types.ts';
import { pending } from './pending.ts';
import { startAuthentication } from '../operations/startAuthentication.ts';
import { handleIdpCallback } from '../operations/handleIdpCallback.ts';
import { resumeAuthentication } from '../operations/resumeAuthentication.ts';
import { exchangeAuthenticationHandoff } from '../operations/exchangeAuthenticationHandoff.ts';
import { getLiveness } from '../operations/getLiveness.ts';
import { getReadiness } from '../operations/getReadiness.ts';

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

  getOnboardingRequirements: pending('getOnboardingRequirements'),
  getOnboardingStatus: pending('getOnboardingStatus'),
  putOnboardingValues: pending('putOnboardingValues'),
  completeOnboarding: pending('completeOnboarding'),

  listPlatforms: pending('listPlatforms'),
  createPlatform: pending('createPlatform'),
  getPlatform: pending('getPlatform'),
  updatePlatform: pending('updatePlatform'),
  deactivatePlatform: pending('deactivatePlatform'),
  activatePlatform: pending('activatePlatform'),
  rotatePlatformCredentials: pending('rotatePlatformCredentials'),
  listAuditEvents: pending('listAuditEvents'),

  listOnboardingFields: pending('listOnboardingFields'),
  createOnboardingField: pending('createOnboardingField'),
  updateOnboardingField: pending('updateOnboardingField'),
  archiveOnboardingField: pending('archiveOnboardingField'),

  getMe: pending('getMe'),
  getMyProfile: pending('getMyProfile'),
  updateMyProfile: pending('updateMyProfile'),
  requestAvatarUpload: pending('requestAvatarUpload'),
  listAuthenticationMethods: pending('listAuthenticationMethods'),
  changePassword: pending('changePassword'),
  deleteMyAccount: pending('deleteMyAccount'),

  getLiveness,
  getReadiness,
};
