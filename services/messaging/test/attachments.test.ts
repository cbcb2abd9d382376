/** Given facts / when command / then facts for uploaded files (domain/attachments.ts). */
import { describe, expect, it } from '@jest/globals';
import { ROLE, type Actor, type FactOf, type StoredAttachment } from '@teamchat/contracts';
import { deciderSpec } from '@teamchat/platform/testing';
import {
  decideClaimAttachments,
  decideDeleteAttachment,
  decideReleaseAttachments,
  decideUploadFile,
  evolveAttachments,
  initialAttachments,
  linkedUploadPaths,
  sanitizeFileName,
  type AttachmentsState,
} from '../src/domain/attachments';

const NOW = 1_700_000_000_500;
const member: Actor = { user_id: 7, role: ROLE.member, client: 'test', email: 'u7@example.com', full_name: 'U', is_bot: false };
const other: Actor = { user_id: 8, role: ROLE.administrator, client: 'test', email: 'u8@example.com', full_name: 'U', is_bot: false };
const KEY = 'abcdefghijklmnopqrstuvwx';
const file = (over: Partial<{ blob_key: string; name: string; size: number; content_type: string }> = {}) => ({
  blob_key: `uploads/0a/${KEY}`,
  name: 'my cat.png',
  size: 100,
  content_type: 'image/png',
  ...over,
});
const stored = (id: number, over: Partial<StoredAttachment> = {}): StoredAttachment => ({
  id,
  path_id: `2/0a/${KEY}/my-cat.png`,
  name: 'my cat.png',
  size: 100,
  content_type: 'image/png',
  create_time: 1_700_000_000,
  owner_id: 7,
  blob_key: `uploads/0a/${KEY}`,
  ...over,
});
const uploaded = (id: number, space: number, over: Partial<StoredAttachment> = {}): FactOf<'AttachmentUploaded'> => ({
  type: 'AttachmentUploaded',
  attachment: stored(id, over),
  upload_space_used: space,
});
const spec = <C>(decide: (state: AttachmentsState, cmd: C) => FactOf<'AttachmentUploaded' | 'AttachmentClaimed' | 'AttachmentReleased' | 'AttachmentRemoved'>[] | ReturnType<typeof decideUploadFile>['facts']) =>
  deciderSpec<AttachmentsState, C>({ initial: initialAttachments, evolve: evolveAttachments, decide: (cmd, state) => decide(state, cmd) });

describe('uploading', () => {
  const upload = spec((state, f: ReturnType<typeof file>) => decideUploadFile(state, { actor: member, file: f, maxBytes: 1000, maxMib: 1, now: NOW }).facts);
  it('records the file under a sanitized path, with the next id and the space used', () =>
    upload.given([uploaded(1, 50, { size: 50 })]).when(file()).then([uploaded(2, 150)]));
  it('refuses an empty file', () => upload.given([]).when(file({ size: 0 })).thenThrows({ code: 'BAD_REQUEST', msg: 'Uploaded file is empty' }));
  it('refuses a file over the limit, naming it', () => upload.given([]).when(file({ size: 1001 })).thenThrows({ msg: /1 MiB/ }));
  it('refuses bytes stored anywhere but under uploads/', () => {
    for (const blob_key of ['emoji/abc', `uploads/0a/../${KEY}`, `uploads/zz/${KEY}`, '../../etc/passwd']) upload.given([]).when(file({ blob_key })).thenThrows({ msg: 'Invalid upload' });
  });
});

describe('claiming', () => {
  const claim = spec((state, cmd: { sender_id: number; message_id: number; paths: string[] }) =>
    decideClaimAttachments(state, { sender_id: cmd.sender_id, message_id: cmd.message_id, date_sent: 1_700_000_100, path_ids: cmd.paths }),
  );
  const path = stored(1).path_id;
  it("a message of the uploader's linking it claims it, with the whole message list", () =>
    claim.given([uploaded(1, 100)]).when({ sender_id: 7, message_id: 40, paths: [path] }).then([
      { type: 'AttachmentClaimed', attachment: stored(1), messages: [{ id: 40, date_sent: 1_700_000_100 }], upload_space_used: 100 },
    ]));
  it("someone else's message claims nothing", () => claim.given([uploaded(1, 100)]).when({ sender_id: 8, message_id: 40, paths: [path] }).then([]));
  it('the same message twice claims once', () =>
    claim
      .given([uploaded(1, 100), { type: 'AttachmentClaimed', attachment: stored(1), messages: [{ id: 40, date_sent: 1 }], upload_space_used: 100 }])
      .when({ sender_id: 7, message_id: 40, paths: [path] })
      .then([]));
  it('unknown paths claim nothing', () => claim.given([uploaded(1, 100)]).when({ sender_id: 7, message_id: 40, paths: ['2/0a/x/y'] }).then([]));
});

describe('releasing', () => {
  const release = spec((state, cmd: { message_id: number; paths: string[] }) => decideReleaseAttachments(state, { message_id: cmd.message_id, path_ids: cmd.paths }));
  const path = stored(1).path_id;
  const claimedBy = (...ids: number[]): FactOf<'AttachmentClaimed'> => ({
    type: 'AttachmentClaimed',
    attachment: stored(1),
    messages: ids.map((id) => ({ id, date_sent: 1 })),
    upload_space_used: 100,
  });
  it('a message edited to no longer link the file releases it, keeping the other messages', () =>
    release.given([uploaded(1, 100), claimedBy(40, 41)]).when({ message_id: 40, paths: [] }).then([
      { type: 'AttachmentReleased', attachment: stored(1), message_id: 40, messages: [{ id: 41, date_sent: 1 }], upload_space_used: 100 },
    ]));
  it('a message that still links the file keeps it', () => release.given([uploaded(1, 100), claimedBy(40)]).when({ message_id: 40, paths: [path] }).then([]));
  it('a message that never claimed it releases nothing, and a release is not repeated', () => {
    release.given([uploaded(1, 100), claimedBy(41)]).when({ message_id: 40, paths: [] }).then([]);
    release
      .given([uploaded(1, 100), claimedBy(40), { type: 'AttachmentReleased', attachment: stored(1), message_id: 40, messages: [], upload_space_used: 100 }])
      .when({ message_id: 40, paths: [] })
      .then([]);
  });
});

describe('deleting', () => {
  const remove = spec((state, cmd: { actor: Actor; id: number }) => decideDeleteAttachment(state, { actor: cmd.actor, attachment_id: cmd.id }));
  it('the uploader deletes it; the space used shrinks', () =>
    remove.given([uploaded(1, 100), uploaded(2, 300, { size: 200 })]).when({ actor: member, id: 1 }).then([
      { type: 'AttachmentRemoved', attachment_id: 1, owner_id: 7, blob_key: `uploads/0a/${KEY}`, upload_space_used: 200 },
    ]));
  it("nobody else, administrators included, as if it did not exist", () =>
    remove.given([uploaded(1, 100)]).when({ actor: other, id: 1 }).thenThrows({ msg: 'Invalid attachment' }));
  it('refuses an unknown or already deleted file', () =>
    remove
      .given([uploaded(1, 100), { type: 'AttachmentRemoved', attachment_id: 1, owner_id: 7, blob_key: 'uploads/0a/x', upload_space_used: 0 }])
      .when({ actor: member, id: 1 })
      .thenThrows({ msg: 'Invalid attachment' }));
});

describe('paths', () => {
  it('sanitizes file names as Zulip does, never leaving a path', () => {
    expect(sanitizeFileName('my cat.png')).toBe('my-cat.png');
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('..')).toBe('uploaded-file');
    expect(sanitizeFileName('<script>.html')).toBe('script.html');
    expect(sanitizeFileName('résumé 2024.pdf')).toBe('résumé-2024.pdf');
  });
  it('finds upload links in content, relative or absolute, each once', () => {
    const p = `2/0a/${KEY}/cat.png`;
    expect(linkedUploadPaths(`[a](/user_uploads/${p}) and http://host/user_uploads/${p} and /user_uploads/2/0a/short/x`)).toEqual([p]);
    expect(linkedUploadPaths('no links')).toEqual([]);
  });
});
