import { useState } from 'react';
import { errorMessage } from '../../app/api';
import { useAppDispatch, useAppSelector } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { Badge, Banner, EmptyState, DataTable, RowEditDelete } from '../../components/ui';
import { fullName, timeAgo } from '../../lib/format';
import { selectUser } from '../../entities/session/sessionSlice';
import {
  type AdminUser,
  type UserInput,
  useCreateUserMutation,
  useDeleteUserMutation,
  useSendPasswordLinkMutation,
  useUpdateUserMutation,
  useUsersQuery,
} from './api';
import { UserForm, roleLabel } from './UserForm';

const PAGE_SIZE = 25;
const ROLE_BADGE = { admin: 'destructive', agent: 'default', customer: 'secondary' } as const;

/** docs/product.md section 2: Last Login reads Never, Just now, n mins/hours/days ago, then the date after 7 days. */
export const lastLoginText = (lastLogin: string | null, now = Date.now()) => (lastLogin ? timeAgo(lastLogin, now) : 'Never');

/** The Users table: Name, Email, Role, Status, Last Login, Actions; one's own account cannot be deleted. */
export function UsersTable({
  users,
  meId,
  onEdit,
  onDelete,
  onSendLink,
}: {
  users: AdminUser[];
  meId: string | undefined;
  onEdit: (user: AdminUser) => void;
  onDelete: (user: AdminUser) => void;
  /** Mails the user a link to set their password (docs/identity.md). */
  onSendLink: (user: AdminUser) => void;
}) {
  if (users.length === 0) return <EmptyState title="No users found" icon="user" />;
  return (
    <DataTable columns={['Name', 'Email', 'Role', 'Status', 'Last Login', 'Actions']}>
      {users.map((user) => {
        const self = user._id === meId;
        return (
          <tr key={user._id}>
            <td>
              <strong>{fullName(user)}</strong>
              <div className="muted small">@{user.username}</div>
            </td>
            <td>
              {user.email}
              {user.createdByEmail && (
                <div>
                  <Badge variant="outline">Created by e-mail</Badge>
                </div>
              )}
            </td>
            <td>
              <Badge variant={ROLE_BADGE[user.role]}>{roleLabel(user.role)}</Badge>
            </td>
            <td>
              <Badge variant={user.isActive ? 'success' : 'outline'}>{user.isActive ? 'Active' : 'Inactive'}</Badge>
            </td>
            <td>{lastLoginText(user.lastLogin)}</td>
            <td>
              {user.isActive && (
                <button type="button" className="button button-ghost button-small" onClick={() => onSendLink(user)}>
                  Send password link
                </button>
              )}
              <RowEditDelete
                name={fullName(user)}
                what="user"
                onEdit={() => onEdit(user)}
                onDelete={() => onDelete(user)}
                deleteRefusal={self ? 'Cannot delete your own account' : null}
              />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

export function UsersTab() {
  const me = useAppSelector(selectUser);
  const dispatch = useAppDispatch();
  const [page, setPage] = useState(1);
  const [search, setSearch] = useState('');
  const { data, error, isLoading } = useUsersQuery({ page, limit: PAGE_SIZE, q: search.trim() || undefined });
  const [createUser, creating] = useCreateUserMutation();
  const [updateUser, updating] = useUpdateUserMutation();
  const [deleteUser, removing] = useDeleteUserMutation();
  const [sendPasswordLink] = useSendPasswordLinkMutation();
  const sendLink = async (user: AdminUser) => {
    try {
      const { sentTo } = await sendPasswordLink(user._id).unwrap();
      dispatch(toastShown('success', `Password link sent to ${sentTo}`));
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'Failed to send the password link')));
    }
  };

  const editor = useListEditor<AdminUser, UserInput>({
    create: (input) => createUser(input).unwrap(),
    update: (user, input) => updateUser({ id: user._id, ...input }).unwrap(),
    remove: (user) => deleteUser(user._id).unwrap(),
    notify: (kind, text) => dispatch(toastShown(kind, text)),
    texts: {
      created: 'User created successfully',
      updated: 'User updated successfully',
      deleted: 'User deleted successfully',
      saveFailed: { create: 'Failed to create user', update: 'Failed to update user' },
      deleteFailed: 'Failed to delete user',
    },
  });
  const { setEditing, setDeleting } = editor;
  const pages = data?.pagination.pages ?? 1;

  return (
    <div className="admin-tab">
      <div className="toolbar">
        <input
          type="search"
          className="search"
          placeholder="Search users..."
          aria-label="Search users"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value);
            setPage(1);
          }}
        />
        <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
          <Icon name="plus" size={16} /> Add User
        </button>
      </div>
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load admin data')}</Banner> : null}
      {isLoading ? (
        <p className="muted">Loading users...</p>
      ) : (
        data && <UsersTable users={data.users} meId={me?._id} onEdit={setEditing} onDelete={setDeleting} onSendLink={sendLink} />
      )}
      {data && pages > 1 && (
        <nav className="pager" aria-label="Users pages">
          <button type="button" className="button button-ghost button-small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span className="muted">
            Page {page} of {pages} · {data.pagination.total} users
          </span>
          <button type="button" className="button button-ghost button-small" disabled={page >= pages} onClick={() => setPage(page + 1)}>
            Next
          </button>
        </nav>
      )}
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add New User', edit: 'Edit User' }}
        confirmMessage="Are you sure you want to delete this user? This action cannot be undone."
        saving={creating.isLoading || updating.isLoading}
        removing={removing.isLoading}
        form={({ record, ...dialog }) => <UserForm user={record} isSelf={record?._id === me?._id} {...dialog} />}
      />
    </div>
  );
}
