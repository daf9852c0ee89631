import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { ListEditorDialogs, useListEditor } from '../../components/ListEditor';
import { Badge, Banner, EmptyState } from '../../components/ui';
import type { Category } from '../../entities/ticket/types';
import { type CategoryInput, useAllCategoriesQuery, useCreateCategoryMutation, useDeleteCategoryMutation, useUpdateCategoryMutation } from './api';
import { CategoryForm } from './CategoryForm';
import { useTeamsQuery } from '../../entities/team/api';

const TYPE_WORDS = { text: 'text', textarea: 'text area', number: 'number' } as const;

/** One category as a card: colour, name, state, order, description and its custom fields. */
export function CategoryCard({ category, onEdit, onDelete }: { category: Category; onEdit: () => void; onDelete: () => void }) {
  return (
    <article className="admin-card" style={{ borderTopColor: category.color }} aria-label={category.name}>
      <header className="admin-card-head">
        <h3>
          <span className="color-dot" style={{ background: category.color }} aria-hidden="true" /> {category.name}
        </h3>
        <Badge variant={category.isActive ? 'success' : 'outline'}>{category.isActive ? 'Active' : 'Inactive'}</Badge>
      </header>
      {category.description ? <p className="muted">{category.description}</p> : <p className="muted small">No description</p>}
      <p className="small">Order: {category.order}</p>
      {category.customFields.length > 0 ? (
        <div className="small">
          <strong>{category.customFields.length === 1 ? '1 custom field' : `${category.customFields.length} custom fields`}</strong>
          <ul className="field-list">
            {[...category.customFields]
              .sort((a, b) => a.order - b.order)
              .map((field) => (
                <li key={field.fieldName}>
                  {field.prompt}{' '}
                  <span className="muted">
                    ({TYPE_WORDS[field.fieldType]}
                    {field.required ? ', required' : ''})
                  </span>
                </li>
              ))}
          </ul>
        </div>
      ) : (
        <p className="muted small">No custom fields</p>
      )}
      <footer className="admin-card-actions">
        <button type="button" className="button button-ghost button-small" aria-label={`Edit category ${category.name}`} onClick={onEdit}>
          <Icon name="edit" size={14} /> Edit
        </button>
        <button type="button" className="button button-ghost button-small danger" aria-label={`Delete category ${category.name}`} onClick={onDelete}>
          <Icon name="trash" size={14} /> Delete
        </button>
      </footer>
    </article>
  );
}

export function CategoriesTab() {
  const dispatch = useAppDispatch();
  const { data, error, isLoading } = useAllCategoriesQuery();
  const teams = useTeamsQuery().data?.teams ?? [];
  const [createCategory, creating] = useCreateCategoryMutation();
  const [updateCategory, updating] = useUpdateCategoryMutation();
  const [deleteCategory, removing] = useDeleteCategoryMutation();
  const editor = useListEditor<Category, CategoryInput>({
    create: (input) => createCategory(input).unwrap(),
    update: (category, input) => updateCategory({ id: category._id, ...input }).unwrap(),
    remove: (category) => deleteCategory(category._id).unwrap(),
    notify: (kind, text) => dispatch(toastShown(kind, text)),
    texts: {
      created: 'Category created successfully',
      updated: 'Category updated successfully',
      deleted: 'Category deleted successfully',
      saveFailed: 'Failed to create or update category',
      deleteFailed: 'Failed to delete category',
    },
  });
  const { setEditing, setDeleting } = editor;

  return (
    <div className="admin-tab">
      <div className="toolbar">
        <p className="muted">Categories sort tickets and decide which extra questions a new ticket asks.</p>
        <button type="button" className="button button-primary" onClick={() => setEditing('new')}>
          <Icon name="plus" size={16} /> Add Category
        </button>
      </div>
      {error ? <Banner kind="error">{errorMessage(error, 'Failed to load admin data')}</Banner> : null}
      {isLoading && <p className="muted">Loading categories...</p>}
      {data && data.categories.length === 0 && (
        <EmptyState title="No categories yet" icon="tag">
          Add one so customers can file tickets.
        </EmptyState>
      )}
      <div className="admin-grid">
        {data?.categories.map((category) => (
          <CategoryCard key={category._id} category={category} onEdit={() => setEditing(category)} onDelete={() => setDeleting(category)} />
        ))}
      </div>
      <ListEditorDialogs
        editor={editor}
        titles={{ add: 'Add New Category', edit: 'Edit Category' }}
        confirmMessage="Are you sure you want to delete this category? This action cannot be undone."
        saving={creating.isLoading || updating.isLoading}
        removing={removing.isLoading}
        wide
        form={({ record, ...dialog }) => <CategoryForm category={record} teams={teams} {...dialog} />}
      />
    </div>
  );
}
