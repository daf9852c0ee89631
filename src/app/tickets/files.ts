import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { chmod, mkdir, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import FileType from 'file-type';
import { UnsupportedTypeError, ValidationError } from '#contract/errors';
import type { Attachment } from '#contract/tickets';
import { isCleanText } from '#contract/text';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../platform/files';
import type { AppDeps } from '../deps';

/**
 * The types docs/product.md allows (images, pdf, doc, docx, txt, csv), keyed by what the content is. A
 * file is accepted only when its content is one of these and its name's extension agrees, and it
 * is stored and later served with the type found here, never the one the client claimed.
 */
const BINARY_TYPES: Record<string, { mimeType: string; extensions: string[] }> = {
  'image/png': { mimeType: 'image/png', extensions: ['.png'] },
  'image/jpeg': { mimeType: 'image/jpeg', extensions: ['.jpg', '.jpeg'] },
  'image/gif': { mimeType: 'image/gif', extensions: ['.gif'] },
  'image/webp': { mimeType: 'image/webp', extensions: ['.webp'] },
  'application/pdf': { mimeType: 'application/pdf', extensions: ['.pdf'] },
  // An OLE compound file is what a Word 97-2003 .doc is made of.
  'application/x-cfb': { mimeType: 'application/msword', extensions: ['.doc'] },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': {
    mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    extensions: ['.docx'],
  },
};
const TEXT_TYPES: Record<string, string> = { '.txt': 'text/plain', '.csv': 'text/csv' };
const ALLOWED = 'images (PNG, JPEG, GIF, WebP), PDF, DOC, DOCX, TXT and CSV';

export interface ReceivedFile {
  fieldName: string;
  attachment: Attachment;
}

export const uploadsDir = (deps: Pick<AppDeps, 'config'>) => path.resolve(deps.config.DATA_DIR, 'uploads');
export const incomingDir = (deps: Pick<AppDeps, 'config'>) => path.join(uploadsDir(deps), '.incoming');

/** A stored file's name: generated, so nothing the client sent ever becomes part of a path. */
export const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.[a-z]{3,4}$/;

function checkName(name: string): void {
  if (name.length === 0 || name.length > 255)
    throw new ValidationError('File names must be 1 to 255 characters long', [{ path: 'attachments', message: 'File names must be 1 to 255 characters long' }]);
  if (/[/\\]/.test(name) || name === '.' || name === '..' || !isCleanText(name, { multiLine: false })) {
    const message = `File names cannot contain a path, line breaks or control characters: ${JSON.stringify(name)}`;
    throw new ValidationError(message, [{ path: 'attachments', message }]);
  }
}

async function isUtf8Text(file: string): Promise<boolean> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of createReadStream(file)) {
      const bytes = chunk as Buffer;
      if (bytes.includes(0)) return false;
      decoder.decode(bytes, { stream: true });
    }
    decoder.decode();
    return true;
  } catch {
    return false;
  }
}

/**
 * "a" or "an" before a file type in capitals: an EXE, an MP4, an HTML (letters said one by one), a PNG, a ZIP.
 */
export function withArticle(type: string): string {
  const upper = type.toUpperCase();
  const vowelSound = /^[AEIOU]/.test(upper) || /^[FHLMNRSX][^AEIOU]*$/.test(upper);
  return `${vowelSound ? 'an' : 'a'} ${upper}`;
}

/** The type the content really has, if it is one docs/product.md allows and the name agrees with it. */
async function sniff(file: string, originalName: string): Promise<string> {
  const extension = path.extname(originalName).toLowerCase();
  const detected = await FileType.fromFile(file);
  if (detected) {
    const allowed = BINARY_TYPES[detected.mime];
    if (!allowed) throw new UnsupportedTypeError(`${originalName} is ${withArticle(detected.ext)} file; allowed are ${ALLOWED}`);
    if (!allowed.extensions.includes(extension))
      throw new UnsupportedTypeError(`${originalName} does not hold what its name says: its content is ${detected.ext.toUpperCase()}`);
    return allowed.mimeType;
  }
  const textType = TEXT_TYPES[extension];
  if (textType && (await isUtf8Text(file))) return textType;
  if (textType) throw new UnsupportedTypeError(`${originalName} is not a plain UTF-8 text file`);
  throw new UnsupportedTypeError(`${originalName} is not an allowed file type; allowed are ${ALLOWED}`);
}

/**
 * Stores a received file (already on disk under `.incoming`) after checking its name and its real
 * type, under a generated name. The web upload and the Telegram bot both come through here.
 */
export async function storeFile(deps: Pick<AppDeps, 'config'>, tempPath: string, originalName: string, size: number): Promise<Attachment> {
  checkName(originalName);
  const mimeType = await sniff(tempPath, originalName);
  const fileId = `${randomUUID()}${path.extname(originalName).toLowerCase()}`;
  const stored = path.join(uploadsDir(deps), fileId);
  await rename(tempPath, stored);
  await chmod(stored, PRIVATE_FILE_MODE);
  return { fileId, mimeType, originalName, size };
}

/** Where received files wait (same disk as the uploads, so storing is a rename). */
export async function incomingFile(deps: Pick<AppDeps, 'config'>): Promise<string> {
  await mkdir(incomingDir(deps), { recursive: true, mode: PRIVATE_DIR_MODE });
  return path.join(incomingDir(deps), randomUUID());
}

export async function discardFiles(deps: Pick<AppDeps, 'config'>, files: ReceivedFile[]): Promise<void> {
  await Promise.all(files.map(({ attachment }) => unlink(path.join(uploadsDir(deps), attachment.fileId)).catch(() => undefined)));
}
