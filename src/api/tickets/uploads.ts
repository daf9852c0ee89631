import { randomUUID } from 'node:crypto';
import { mkdir, unlink } from 'node:fs/promises';
import type { Request, Response } from 'express';
import multer from 'multer';
import { PayloadTooLargeError, ValidationError } from '#contract/errors';
import { PRIVATE_DIR_MODE } from '../../platform/files';
import { loadSystemSettings } from '../../projections/settings';
import type { AppDeps } from '../../app/deps';
import { type ReceivedFile, discardFiles, incomingDir, storeFile } from '../../app/tickets/files';
import { fileTooLargeText, tooManyFilesText } from '#contract/tickets';

function multerError(error: unknown, limits: { maxFileSize: number; maxFiles: number }): unknown {
  // A body busboy cannot read (no boundary, truncated, malformed headers) is the client's mistake;
  // a failing disk (an errno code such as ENOSPC) is ours and stays a server error.
  const errno = (error as NodeJS.ErrnoException).code;
  if (!(error instanceof multer.MulterError))
    return error instanceof Error && !errno ? new ValidationError(`The upload could not be read: ${error.message}`) : error;
  switch (error.code) {
    case 'LIMIT_FILE_SIZE':
      return new PayloadTooLargeError(fileTooLargeText(limits.maxFileSize));
    case 'LIMIT_FILE_COUNT':
      return new ValidationError(tooManyFilesText(limits.maxFiles), [{ path: 'attachments', message: tooManyFilesText(limits.maxFiles) }]);
    case 'LIMIT_FIELD_VALUE':
      return new PayloadTooLargeError(error.field ? `The field ${error.field} is too long` : 'A form field is too long');
    default:
      return new ValidationError(`The upload was refused: ${error.message}`);
  }
}

/**
 * Reads a multipart request: text fields into `req.body`, files checked for count, size (both
 * from the live system settings), name and real type, then stored under generated names. Any
 * refusal removes every file of the request, so a bad upload leaves nothing behind.
 */
export async function receiveMultipart(
  deps: Pick<AppDeps, 'config' | 'readStore'>,
  req: Request,
  res: Response,
  acceptField: (fieldName: string) => boolean,
): Promise<ReceivedFile[]> {
  const settings = await loadSystemSettings(deps.readStore);
  const limits = { maxFileSize: settings.maxFileSize, maxFiles: settings.maxFiles };
  await mkdir(incomingDir(deps), { recursive: true, mode: PRIVATE_DIR_MODE });
  const upload = multer({
    storage: multer.diskStorage({ destination: incomingDir(deps), filename: (_req, _file, done) => done(null, randomUUID()) }),
    preservePath: true,
    defParamCharset: 'utf8',
    limits: { fileSize: limits.maxFileSize, files: limits.maxFiles, fields: 50, fieldSize: 64 * 1024, parts: limits.maxFiles + 50 },
  }).any();
  await new Promise<void>((resolve, reject) => upload(req, res, (error?: unknown) => (error ? reject(multerError(error, limits)) : resolve())));

  const received = (req.files as Express.Multer.File[] | undefined) ?? [];
  const stored: ReceivedFile[] = [];
  try {
    for (const file of received) {
      if (!acceptField(file.fieldname))
        throw new ValidationError(`Unexpected file field: ${file.fieldname}`, [{ path: file.fieldname, message: 'Files are not accepted in this field' }]);
      stored.push({ fieldName: file.fieldname, attachment: await storeFile(deps, file.path, file.originalname, file.size) });
    }
    return stored;
  } catch (error) {
    await Promise.all(received.map((file) => unlink(file.path).catch(() => undefined)));
    await discardFiles(deps, stored);
    throw error;
  }
}
