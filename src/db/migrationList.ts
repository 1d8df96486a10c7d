import type { Knex } from 'knex';
import * as registryAndUsers from '../../migrations/20261122000100_registry_and_users.ts';
import * as loginFlow from '../../migrations/20261122000200_login_flow.ts';
import * as onboarding from '../../migrations/20261122000300_onboarding.ts';
import * as audit from '../../migrations/20261122000400_audit.ts';
import * as platformCredentials from '../../migrations/20261122000500_platform_credentials_and_login_binding.ts';
import * as onboardingSchemaAudit from '../../migrations/20261122000600_onboarding_schema_audit.ts';
import * as avatars from '../../migrations/20261122000700_avatars.ts';
import * as rateLimits from '../../migrations/20261122000800_rate_limits.ts';
import * as accountDeletion from '../../migrations/20261122000900_account_deletion.ts';
import * as sessions from '../../migrations/20261122001000_sessions.ts';
import * as backchannelLogoutOut from '../../migrations/20261122001100_backchannel_logout_out.ts';
import * as foreignKeyIndexes from '../../migrations/20261122001200_foreign_key_indexes.ts';
import * as auditActorDevstack from '../../migrations/20261122001390_audit_actor_devstack.ts';
import * as handoffChallengeRequired from '../../migrations/20261122001400_handoff_challenge_required.ts';
import * as stepUp from '../../migrations/20261126000200_step_up.ts';
import * as unreachedSessions from '../../migrations/20261126001500_unreached_sessions.ts';
import * as securityEvents from '../../migrations/20261127002000_security_events.ts';
import * as deletionReceipts from '../../migrations/20261127002100_deletion_receipts.ts';
import * as platformState from '../../migrations/20261127000100_platform_state.ts';
import * as platformDocuments from '../../migrations/20261127001000_platform_documents.ts';
import * as dataRights from '../../migrations/20261127002500_data_rights.ts';
import * as onboardingFieldTranslations from '../../migrations/20261127003000_onboarding_field_translations.ts';
import * as platformBranding from '../../migrations/20261127003500_platform_branding.ts';
import * as platformDefaultLanguage from '../../migrations/20261127004600_platform_default_language.ts';
import * as documentsTruncateGuard from '../../migrations/20261127005100_documents_truncate_guard.ts';
import * as stepUpChallenges from '../../migrations/20261128001000_step_up_challenges.ts';
import * as agreementRecordedVia from '../../migrations/20261128002000_agreement_recorded_via.ts';
import * as supportAccess from '../../migrations/20261129001000_support_access.ts';
import * as supportAccessPlatformEnd from '../../migrations/20261129001100_support_access_platform_end.ts';
import * as requirementGrace from '../../migrations/20261129002000_requirement_grace.ts';
import * as fieldSharing from '../../migrations/20261129003000_field_sharing.ts';
import * as supportAccessAdministratorEnd from '../../migrations/20261129004000_support_access_administrator_end.ts';
import * as auditSupportAccessEnd from '../../migrations/20261129004100_audit_support_access_end.ts';
import * as fieldRequirementVersion from '../../migrations/20261129006000_field_requirement_version.ts';

/**
 * Migrations are listed here rather than discovered on disk: the list is checked
 * by the type checker, and the order is the timestamp order of the names.
 */
export const MIGRATIONS: Record<string, Knex.Migration> = {
  '20261122000100_registry_and_users': registryAndUsers,
  '20261122000200_login_flow': loginFlow,
  '20261122000300_onboarding': onboarding,
  '20261122000400_audit': audit,
  '20261122000500_platform_credentials_and_login_binding': platformCredentials,
  '20261122000600_onboarding_schema_audit': onboardingSchemaAudit,
  '20261122000700_avatars': avatars,
  '20261122000800_rate_limits': rateLimits,
  '20261122000900_account_deletion': accountDeletion,
  '20261122001000_sessions': sessions,
  '20261122001100_backchannel_logout_out': backchannelLogoutOut,
  '20261122001200_foreign_key_indexes': foreignKeyIndexes,
  '20261122001390_audit_actor_devstack': auditActorDevstack,
  '20261122001400_handoff_challenge_required': handoffChallengeRequired,
  '20261126000200_step_up': stepUp,
  '20261126001500_unreached_sessions': unreachedSessions,
  '20261127002000_security_events': securityEvents,
  '20261127002100_deletion_receipts': deletionReceipts,
  '20261127000100_platform_state': platformState,
  '20261127001000_platform_documents': platformDocuments,
  '20261127002500_data_rights': dataRights,
  '20261127003000_onboarding_field_translations': onboardingFieldTranslations,
  '20261127003500_platform_branding': platformBranding,
  '20261127004600_platform_default_language': platformDefaultLanguage,
  '20261127005100_documents_truncate_guard': documentsTruncateGuard,
  '20261128001000_step_up_challenges': stepUpChallenges,
  '20261128002000_agreement_recorded_via': agreementRecordedVia,
  '20261129001000_support_access': supportAccess,
  '20261129001100_support_access_platform_end': supportAccessPlatformEnd,
  '20261129002000_requirement_grace': requirementGrace,
  '20261129003000_field_sharing': fieldSharing,
  '20261129004000_support_access_administrator_end': supportAccessAdministratorEnd,
  '20261129004100_audit_support_access_end': auditSupportAccessEnd,
  '20261129006000_field_requirement_version': fieldRequirementVersion,
};
