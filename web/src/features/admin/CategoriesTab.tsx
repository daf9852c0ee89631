import { errorMessage } from '../../app/api';
import { useAppDispatch } from '../../app/hooks';
import { Icon } from '../../components/icons';
import { toastShown } from '../../components/toastsSlice';
import { Badge, Banner, ConfirmDialog, EmptyState, Modal } from '../../components/ui';
import { useEditing } from '../../lib/editing';
import type { Category } from '../../entities/ticket/types';
import { type CategoryInput, useAllCategoriesQuery, useCreateCategoryMutation, useDeleteCategoryMutation, useUpdateCategoryMutation } from './api';
import { CategoryForm } from './CategoryForm';

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
  const { editing, setEditing, deleting, setDeleting, formError, setFormError, close } = useEditing<Category>();
  const [createCategory, creating] = useCreateCategoryMutation();
  const [updateCategory, updating] = useUpdateCategoryMutation();
  const [deleteCategory, removing] = useDeleteCategoryMutation();

  const save = async (input: CategoryInput) => {
    try {
      if (editing === 'new') await createCategory(input).unwrap();
      else if (editing) await updateCategory({ id: editing._id, ...input }).unwrap();
      dispatch(toastShown('success', editing === 'new' ? 'Category created successfully' : 'Category updated successfully'));
      close();
    } catch (failure) {
      setFormError(errorMessage(failure, 'Failed to create or update category'));
    }
  };
  const remove = async () => {
    if (!deleting) return;
    try {
      await deleteCategory(deleting._id).unwrap();
      dispatch(toastShown('success', 'Category deleted successfully'));
    } catch (failure) {
      dispatch(toastShown('error', errorMessage(failure, 'Failed to delete category')));
    }
    setDeleting(null);
  };

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
      {editing && (
        <Modal title={editing === 'new' ? 'Add New Category' : 'Edit Category'} onClose={close} wide>
          <CategoryForm
            category={editing === 'new' ? null : editing}
            saving={creating.isLoading || updating.isLoading}
            error={formError}
            onSubmit={(input) => void save(input)}
            onCancel={close}
          />
        </Modal>
      )}
      {deleting && (
        <ConfirmDialog
          message="Are you sure you want to delete this category? This action cannot be undone."
          busy={removing.isLoading}
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(null)}
        />
      )}
    </div>
  );
}
