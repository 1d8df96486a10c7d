import type { AvatarStore, TicketSpec, UploadTarget } from './store.ts';
import type { UploadLinkSigner } from './signing.ts';

/**
 * The embedded default: the gateway serves the upload URL itself (`uploadAvatar`, signed,
 * single use) and the pictures (`getAvatar`). The bytes live in the avatar's row, so every
 * gateway instance serves every picture with no shared disk.
 */
export function createPostgresStore(publicBaseUrl: string, signer: UploadLinkSigner): AvatarStore {
  return {
    kind: 'postgres',
    staging: null,
    async uploadTarget(ticket: TicketSpec): Promise<UploadTarget> {
      return {
        uploadUrl: signedGatewayUrl(publicBaseUrl, signer, `/v1/avatar-uploads/${ticket.id}`, ticket),
        headers: { 'Content-Type': ticket.contentType, 'Content-Length': String(ticket.contentLength) },
        confirmUrl: null,
      };
    },
    pictureUrl: (avatarId) => `${publicBaseUrl}/v1/avatars/${avatarId}`,
    persist: async (_avatarId, webp) => webp,
    forget: async () => {},
  };
}

/** A gateway URL carrying the ticket's expiry and signature (`uploadAvatar`, `confirmAvatarUpload`). */
export function signedGatewayUrl(publicBaseUrl: string, signer: UploadLinkSigner, path: string, ticket: Pick<TicketSpec, 'id' | 'expires'>): string {
  const url = new URL(`${publicBaseUrl}${path}`);
  url.searchParams.set('expires', String(ticket.expires));
  url.searchParams.set('signature', signer.sign(ticket.id, ticket.expires));
  return url.href;
}
