// The example BFF's HTML (src/devstack/demoBff.ts): the page frame, the signed-in person,
// and the session shape they show.

/** What the BFF keeps on the server for a signed-in person. */
export interface BffSession {
  platformKey: string;
  /** `session.id` of the exchange: the `sid` of the logout token that ends it. */
  gatewaySessionId: string;
  /** The platform credential (`gwp_…`): never sent to the browser. */
  platformCredential: string;
  user: { id: string; sub: string };
  /** Who signed in, from GET /v1/me (null when the gateway could not say). */
  person: Person | null;
}

/** The part of GET /v1/me the pages show. */
export interface Person {
  displayName: string | null;
  email: string | null;
  pictureUrl: string | null;
}

export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Who signed in: the person's name, e-mail and picture (never the credential). */
export function personHtml(session: BffSession): string {
  const name = session.person?.displayName ?? session.user.sub;
  const picture = session.person?.pictureUrl
    ? `<img class="avatar" src="${escapeHtml(session.person.pictureUrl)}" alt="" width="48" height="48">`
    : `<span class="avatar" aria-hidden="true">${escapeHtml(name.slice(0, 1).toUpperCase())}</span>`;
  const email = session.person?.email ? ` <span class="email">${escapeHtml(session.person.email)}</span>` : '';
  return `<span class="person">${picture} <strong class="name">${escapeHtml(name)}</strong>${email}</span>`;
}

export function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:44rem;margin:3rem auto;padding:0 1rem;color:#222}
a.button,button{display:inline-block;padding:.6rem 1.2rem;background:#2457d6;color:#fff;border:0;border-radius:6px;text-decoration:none;font:inherit;cursor:pointer}
pre{background:#f4f4f4;padding:1rem;overflow:auto}
.avatar{display:inline-flex;width:48px;height:48px;border-radius:50%;background:#dde4f6;align-items:center;justify-content:center;vertical-align:middle;object-fit:cover}</style></head><body>${body}</body></html>`;
}
