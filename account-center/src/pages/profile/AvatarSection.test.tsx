import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { fakeGateway, json, noContent, PROFILE, problem, renderProfilePage, SLOW } from './testGateway.tsx';

const PICTURE = 'http://gateway.test/v1/avatars/9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
const png = (bytes = 68) => new File([new Uint8Array(bytes)], 'me.png', { type: 'image/png' });

function ticket(confirmUrl: string | null = null) {
  return json(201, {
    uploadUrl: 'http://gateway.test/v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70?expires=1748163600&signature=sig',
    method: 'PUT',
    headers: { 'Content-Type': 'image/png', 'Content-Length': '68' },
    expiresAt: '2025-05-21T09:00:00Z',
    confirmUrl,
    pictureUrl: PICTURE,
  });
}

const section = async () => within(await screen.findByRole('region', { name: 'Profile picture' }));
// userEvent honours `accept` unless told not to: a person can still pick "All files".
const person = () => userEvent.setup({ applyAccept: false });

describe('profile: picture', SLOW, () => {
  let created: string[];
  let revoked: string[];
  beforeEach(() => {
    created = [];
    revoked = [];
    // jsdom has no object URLs: count what the page creates and gives back.
    URL.createObjectURL = vi.fn(() => {
      created.push(`blob:preview-${created.length + 1}`);
      return created.at(-1)!;
    });
    URL.revokeObjectURL = vi.fn((url: string) => {
      revoked.push(url);
    });
  });
  afterEach(() => {
    Reflect.deleteProperty(URL, 'createObjectURL');
    Reflect.deleteProperty(URL, 'revokeObjectURL');
  });

  it('without a picture shows the initials, described for screen readers; the file input is labelled and accepts only pictures', async () => {
    renderProfilePage(fakeGateway());
    const picture = await section();
    const placeholder = picture.getByRole('img', { name: /No picture yet/ });
    expect(placeholder.textContent).toBe('AL');
    const input = picture.getByLabelText('Choose a picture');
    expect(input.getAttribute('type')).toBe('file');
    expect(input.getAttribute('accept')).toBe('image/png,image/jpeg,image/webp');
    expect(picture.queryByRole('button', { name: 'Remove picture' })).toBeNull();
  });

  it('a chosen file the browser cannot show as a picture says so instead of a broken preview, and is not offered for upload', async () => {
    const gateway = fakeGateway();
    renderProfilePage(gateway);
    const picture = await section();
    const input = picture.getByLabelText('Choose a picture');
    await person().upload(input, new File(['not really a png'], 'broken.png', { type: 'image/png' }));
    const preview = picture.getByRole('img', { name: 'Preview of the chosen picture' });
    fireEvent.error(preview);
    const message = '“broken.png” could not be shown as a picture: it may be damaged. Choose another PNG, JPEG or WebP picture.';
    expect(await picture.findByText(message)).toBeDefined();
    expect(picture.queryByRole('img', { name: 'Preview of the chosen picture' })).toBeNull();
    expect(picture.queryByText(/not uploaded yet/)).toBeNull();
    expect(picture.queryByRole('button', { name: 'Upload picture' })).toBeNull();
    expect(input.getAttribute('aria-invalid')).toBe('true');
    expect(gateway.callsTo('POST /v1/profile/me/avatar/upload-request')).toEqual([]);
  });

  it('refuses another type before anything is sent', async () => {
    const gateway = fakeGateway();
    renderProfilePage(gateway);
    const picture = await section();
    await person().upload(picture.getByLabelText('Choose a picture'), new File(['GIF89a'], 'cat.gif', { type: 'image/gif' }));
    expect(picture.getByText('“cat.gif” is not a PNG, JPEG or WebP picture. Choose a picture in one of these formats.')).toBeDefined();
    expect(picture.getByLabelText('Choose a picture').getAttribute('aria-invalid')).toBe('true');
    expect(picture.queryByRole('button', { name: 'Upload picture' })).toBeNull();
    expect(gateway.callsTo('POST /v1/profile/me/avatar/upload-request')).toEqual([]);
    expect(created).toEqual([]);
  });

  it('refuses a file over 5 MiB before anything is sent', async () => {
    const gateway = fakeGateway();
    renderProfilePage(gateway);
    const picture = await section();
    await person().upload(picture.getByLabelText('Choose a picture'), png(5 * 1024 * 1024 + 1));
    expect(picture.getByText(/“me\.png” is 5\.0 MB; a picture can be at most 5 MB/)).toBeDefined();
    expect(picture.queryByRole('button', { name: 'Upload picture' })).toBeNull();
    expect(gateway.callsTo('POST /v1/profile/me/avatar/upload-request')).toEqual([]);
  });

  it('previews the chosen file, uploads it with exactly the ticket and no credentials, then shows the new picture', async () => {
    const gateway = fakeGateway({
      'POST /v1/profile/me/avatar/upload-request': ticket(),
      'PUT /v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70': noContent(),
      'GET /v1/profile/me': [json(200, PROFILE), json(200, { ...PROFILE, pictureUrl: PICTURE })],
    });
    renderProfilePage(gateway);
    const picture = await section();
    const file = png();
    await person().upload(picture.getByLabelText('Choose a picture'), file);
    expect((picture.getByRole('img', { name: 'Preview of the chosen picture' }) as HTMLImageElement).src).toBe('blob:preview-1');
    expect(picture.getByText('me.png')).toBeDefined();

    await person().click(picture.getByRole('button', { name: 'Upload picture' }));
    const image = await picture.findByRole('img', { name: 'Your profile picture' });
    expect((image as HTMLImageElement).src).toBe(PICTURE);
    expect(picture.getByText('Your new picture is saved.')).toBeDefined();
    expect(gateway.callsTo('POST /v1/profile/me/avatar/upload-request').map((call) => call.body)).toEqual([{ contentType: 'image/png', contentLength: 68 }]);
    const [put] = gateway.callsTo('PUT /v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70');
    expect(put).toMatchObject({ path: expect.stringContaining('signature=sig'), body: file, credentials: 'omit' });
    expect(put!.headers).toEqual({ 'content-type': 'image/png', 'content-length': '68' });
    expect(put!.headers.cookie).toBeUndefined();
    // the preview's object URL is given back
    expect(revoked).toEqual(['blob:preview-1']);
    expect(picture.queryByRole('img', { name: 'Preview of the chosen picture' })).toBeNull();
  });

  it('confirms an object-store upload when the ticket has a confirmUrl', async () => {
    const confirm = 'http://gateway.test/v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70/confirm?expires=1&signature=s';
    const gateway = fakeGateway({
      'POST /v1/profile/me/avatar/upload-request': json(201, { ...(await ticket().json()), uploadUrl: 'http://s3.test/bucket/uploads/x?X-Amz-Signature=abc', confirmUrl: confirm }),
      'PUT /bucket/uploads/x': noContent(),
      'POST /v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70/confirm': noContent(),
    });
    renderProfilePage(gateway);
    const picture = await section();
    await person().upload(picture.getByLabelText('Choose a picture'), png());
    await person().click(picture.getByRole('button', { name: 'Upload picture' }));
    expect(await picture.findByText('Your new picture is saved.')).toBeDefined();
    expect(gateway.callsTo('PUT /bucket/uploads/x')[0]!.credentials).toBe('omit');
    expect(gateway.callsTo('POST /v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70/confirm')).toMatchObject([{ credentials: 'omit', body: undefined }]);
  });

  it.each([
    ['an image that is not what it claims', problem(400, 'IMAGE_INVALID', 'The image could not be decoded.'), /could not be read as the picture it claims to be/],
    ['a body larger than declared', problem(413, 'PAYLOAD_TOO_LARGE', 'Too large.'), /too large: a picture can be at most 5 MB/],
    ['a spent ticket', problem(404, 'UPLOAD_TICKET_INVALID', 'Unknown ticket.'), /expired or was already used/],
  ])('says plainly when the upload is refused: %s', async (_what, answer, text) => {
    const gateway = fakeGateway({
      'POST /v1/profile/me/avatar/upload-request': ticket(),
      'PUT /v1/avatar-uploads/5d1f0c2e-7a4b-4e8c-9f10-2b3c4d5e6f70': answer,
    });
    renderProfilePage(gateway);
    const picture = await section();
    await person().upload(picture.getByLabelText('Choose a picture'), png());
    await person().click(picture.getByRole('button', { name: 'Upload picture' }));
    expect(await picture.findByText(text)).toBeDefined();
    expect(picture.getByRole('img', { name: /No picture yet/ })).toBeDefined();
  });

  it('says plainly when no ticket is given', async () => {
    renderProfilePage(fakeGateway({ 'POST /v1/profile/me/avatar/upload-request': problem(503, 'STORAGE_UNAVAILABLE', 'Storage is down.') }));
    const picture = await section();
    await person().upload(picture.getByLabelText('Choose a picture'), png());
    await person().click(picture.getByRole('button', { name: 'Upload picture' }));
    expect(await picture.findByText('Pictures cannot be stored right now. Try again later.')).toBeDefined();
  });

  it('removes the picture after a confirmation', async () => {
    const gateway = fakeGateway({
      'GET /v1/profile/me': [json(200, { ...PROFILE, pictureUrl: PICTURE }), json(200, PROFILE)],
      'DELETE /v1/profile/me/avatar': noContent(),
    });
    renderProfilePage(gateway);
    const picture = await section();
    expect(((await picture.findByRole('img', { name: 'Your profile picture' })) as HTMLImageElement).src).toBe(PICTURE);
    await userEvent.click(picture.getByRole('button', { name: 'Remove picture' }));
    const dialog = screen.getByRole('dialog', { name: 'Remove your picture?' });
    await userEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    expect(gateway.callsTo('DELETE /v1/profile/me/avatar')).toEqual([]);

    await userEvent.click(picture.getByRole('button', { name: 'Remove picture' }));
    await userEvent.click(within(screen.getByRole('dialog', { name: 'Remove your picture?' })).getByRole('button', { name: 'Remove picture' }));
    expect(await picture.findByText('Your picture was removed.')).toBeDefined();
    expect(gateway.callsTo('DELETE /v1/profile/me/avatar')).toHaveLength(1);
    await waitFor(() => expect(picture.getByRole('img', { name: /No picture yet/ })).toBeDefined());
  });
});
