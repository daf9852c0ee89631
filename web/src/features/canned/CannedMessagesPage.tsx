import { useMemo, useState } from 'react';
import { isStaff } from '#contract/users';
import { errorMessage } from '../../app/api';
import { useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { AccessDenied, Badge, Banner, EmptyState, FlashBanner, PageHeader } from '../../components/ui';
import { useFlash } from '../../lib/flash';
import { formatDate, fullName, plural } from '../../lib/format';
import { selectUser } from '../../entities/session/sessionSlice';
import { useCannedMessagesQuery, useCategoriesQuery } from '../../entities/ticket/api';
import type { CannedMessage, Category } from '../../entities/ticket/types';
import { type CannedInput, useCreateCannedMutation, useDeleteCannedMutation, useUpdateCannedMutation } from './api';
import { CannedForm } from './CannedForm';

/** docs/product.md section 2: search matches shortcode, title or content, case-insensitive; the filter matches the category id. */
export function filterCanned(messages: CannedMessage[], search: string, category: string): CannedMessage[] {
  const needle = search.trim().toLowerCase();
  return messages.filter(
    (canned) =>
      (category === 'all' || canned.category?._id === category) &&
      (!needle ||
        canned.shortcode.toLowerCase().includes(needle) ||
        canned.title.toLowerCase().includes(needle) ||
        canned.content.toLowerCase().includes(needle)),
  );
}

export function CannedCard({ canned, canDelete, onEdit, onDelete }: { canned: CannedMessage; canDelete: boolean; onEdit: () => void; onDelete: () => void }) {
  return (
    <article className="canned-card" aria-label={`#${canned.shortcode}`}>
      <header className="admin-card-head">
        <div>
          <h2 className="mono">#{canned.shortcode}</h2>
          <p className="canned-title">{canned.title}</p>
        </div>
        <div className="row-actions">
          <button type="button" className="icon-button" aria-label={`Edit #${canned.shortcode}`} title="Edit" onClick={onEdit}>
            <Icon name="edit" size={16} />
          </button>
          {canDelete && (
            <button type="button" className="icon-button danger" aria-label={`Delete #${canned.shortcode}`} title="Delete" onClick={onDelete}>
              <Icon name="trash" size={16} />
            </button>
          )}
        </div>
      </header>
      <p className="clamp-3 preserve">{canned.content}</p>
      <footer className="canned-meta small muted">
        {canned.category && <Badge variant="secondary">{canned.category.name}</Badge>}
        <span>{plural(canned.usageCount, 'use')}</span>
        <span>By {fullName(canned.createdBy)}</span>
        <span>Created {formatDate(canned.createdAt)}</span>
        {canned.lastUsed && <span>Last used {formatDate(canned.lastUsed)}</span>}
      </footer>
    </article>
  );
}

/** Search, category filter and the two-column grid with the empty states of docs/product.md section 2. */
export function CannedBrowser({
  messages,
  categories,
  canDelete,
  onEdit,
  onDelete,
}: {
  messages: CannedMessage[];
  categories: Category[];
  canDelete: boolean;
  onEdit: (canned: CannedMessage) => void;
  onDelete: (canned: CannedMessage) => void;
}) {
  const [search, setSearch] = useState('');
  const [category, setCategory] = useState('all');
  const shown = useMemo(() => filterCanned(messages, search, category), [messages, search, category]);
  const filtering = search.trim() !== '' || category !== 'all';
  return (
    <>
      <div className="toolbar toolbar-start">
        <input
          type="search"
          className="search"
          placeholder="Search messages..."
          aria-label="Search messages"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        <select aria-label="Filter by category" value={category} onChange={(e) => setCategory(e.target.value)}>
          <option value="all">All Categories</option>
          {categories.map((option) => (
            <option key={option._id} value={option._id}>
              {option.name}
            </option>
          ))}
        </select>
      </div>
      {shown.length === 0 ? (
        <EmptyState title="No messages found" icon="canned">
          {filtering ? 'No messages match your filters' : 'No canned messages found. Create your first one!'}
        </EmptyState>
      ) : (
        <div className="canned-grid">
          {shown.map((canned) => (
            <CannedCard key={canned._id} canned={canned} canDelete={canDelete} onEdit={() => onEdit(canned)} onDelete={() => onDelete(canned)} />
          ))}
        </div>
      )}
    </>
  );
}

export function CannedMessagesPage() {
  const user = useAppSelector(selectUser);
  const staff = user ? isStaff(user.role) : false;
  const list = useCannedMessagesQuery(undefined, { skip: !staff });
  const categories = useCategoriesQuery(undefined, { skip: !staff });
  const { flash, show, clear } = useFlash();
  const startAdding = () => {
    clear();
    setEditing('new');
  };
  const [createCanned, creating] = useCreateCannedMutation();
  const [updateCanned, updating] = useUpdateCannedMutation();
  const [deleteCanned, removing] = useDeleteCannedMutation();
  const editor = useListEditor<CannedMessage, CannedInput>({
    create: (input) => createCanned(input).unwrap(),
    update: (canned, input) => updateCanned({ id: canned._id, ...input }).unwrap(),
    remove: (canned) => deleteCanned(canned._id).unwrap(),
    notify: show,
    texts: {
      created: 'Canned message created successfully!',
      updated: 'Canned message updated successfully!',
      deleted: 'Canned message deleted successfully!',
      saveFailed: { create: 'Failed to create canned message', update: 'Failed to update canned message' },
      deleteFailed: 'Failed to delete canned message',
    },
  });
  const { setEditing, setDeleting } = editor;
  if (!staff) return <AccessDenied>Access Denied: You must be an administrator or agent to access canned message settings.</AccessDenied>;

  return (
    <div className="page">
      <PageHeader title="Canned Messages" subtitle="Ready-made replies; type #shortcode in a chat to insert one.">
        <button type="button" className="button button-primary" onClick={startAdding}>
          <Icon name="plus" size={16} /> Add Canned Message
        </button>
      </PageHeader>
      <FlashBanner flash={flash} onClose={clear} />
      {list.error ? <Banner kind="error">{errorMessage(list.error, 'Failed to load data')}</Banner> : null}
      {list.isLoading ? (
        <p className="muted" role="status">
          Loading canned messages...
        </p>
      ) : (
        list.data && (
          <CannedBrowser
            messages={list.data.cannedMessages}
            categories={categories.data?.categories ?? []}
            canDelete={user?.role === 'admin'}
            onEdit={setEditing}
            onDelete={setDeleting}
          />
        )
      )}
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add New Canned Message', edit: 'Edit Canned Message' }}
        confirmMessage="Are you sure you want to delete this canned message?"
        saving={creating.isLoading || updating.isLoading}
        removing={removing.isLoading}
        form={({ record, ...dialog }) => <CannedForm canned={record} categories={categories.data?.categories ?? []} {...dialog} />}
      />
    </div>
  );
}
