import { useEffect, useState } from 'react';
import { formatKb } from '../lib/format';
import { tokens } from '../lib/tokens';
import { Icon } from './icons';

export interface FileRef {
  url: string;
  mimeType: string;
  originalName: string;
  size: number;
}

/** Uploads are served only with the bearer token (docs/contract.md), so the browser fetches them as blobs. */
async function fetchBlob(url: string): Promise<Blob> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${tokens.access() ?? ''}` } });
  if (!response.ok) throw new Error(`The file could not be loaded (${response.status})`);
  return response.blob();
}

/** Saves what `url` serves (with the bearer token) as `filename`: attachments and the dashboards' CSV exports. */
export async function downloadWithToken(url: string, filename: string): Promise<void> {
  const objectUrl = URL.createObjectURL(await fetchBlob(url));
  const link = document.createElement('a');
  link.href = objectUrl;
  link.download = filename;
  link.click();
  // The click starts the download asynchronously: the blob URL must outlive it.
  setTimeout(() => URL.revokeObjectURL(objectUrl), 60_000);
}

function AuthImage({ file }: { file: FileRef }) {
  const [src, setSrc] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    let objectUrl: string | null = null;
    let live = true;
    fetchBlob(file.url)
      .then((blob) => {
        objectUrl = URL.createObjectURL(blob);
        if (live) setSrc(objectUrl);
      })
      .catch(() => live && setFailed(true));
    return () => {
      live = false;
      if (objectUrl) URL.revokeObjectURL(objectUrl);
    };
  }, [file.url]);
  if (failed) return <span className="muted">{file.originalName} (could not be loaded)</span>;
  return src ? (
    <button
      type="button"
      className="attachment-image"
      onClick={() => window.open(src, '_blank', 'noopener')}
      title={`${file.originalName} (${formatKb(file.size)})`}
    >
      <img src={src} alt={file.originalName} />
    </button>
  ) : (
    <span className="attachment-image attachment-loading" aria-label={`Loading ${file.originalName}`} />
  );
}

function AuthLink({ file }: { file: FileRef }) {
  const [error, setError] = useState<string | null>(null);
  const open = async () => {
    setError(null);
    try {
      await downloadWithToken(file.url, file.originalName);
    } catch (failure) {
      setError((failure as Error).message);
    }
  };
  return (
    <span className="attachment-link">
      <button type="button" className="link-button" onClick={open}>
        <Icon name="file" size={16} /> {file.originalName}
      </button>
      <span className="muted"> ({formatKb(file.size)})</span>
      {error && <span className="field-error"> {error}</span>}
    </span>
  );
}

/** An uploaded file: images are shown inline, anything else is a download link. */
export function AuthFile({ file }: { file: FileRef }) {
  return file.mimeType.startsWith('image/') ? <AuthImage file={file} /> : <AuthLink file={file} />;
}
