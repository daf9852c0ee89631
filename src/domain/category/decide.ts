import { changedFields } from '../shared/changes';
import { ConflictError, NotFoundError } from '#contract/errors';
import type { Decider } from '../shared/decider';
import type { CategoryChanges, CategoryInput } from '#contract/categories';
import { type CategoryEvent, type CategoryState, evolve, initialState } from './category';
import { type CategoryDetails, type CustomField } from '#contract/categories';

export type CategoryCommand =
  | { type: 'CreateCategory'; categoryId: string; input: CategoryInput }
  | { type: 'UpdateCategory'; categoryId: string; changes: CategoryChanges }
  | { type: 'ReorderCategory'; categoryId: string; order: number }
  | { type: 'DeleteCategory'; categoryId: string };

/** A custom field's order is its position when added (docs/product.md section 3), unless one is given. */
const normalizeFields = (fields: CategoryInput['customFields']): CustomField[] => fields.map((field, index) => ({ ...field, order: field.order ?? index }));

function existing(state: CategoryState) {
  if (state.status !== 'active') throw new NotFoundError('Category');
  return state;
}

function create(command: Extract<CategoryCommand, { type: 'CreateCategory' }>, state: CategoryState): CategoryEvent[] {
  if (state.status !== 'none') throw new ConflictError('Category already exists', 'CATEGORY_EXISTS');
  const { customFields, ...rest } = command.input;
  return [{ type: 'CategoryCreated', data: { categoryId: command.categoryId, ...rest, customFields: normalizeFields(customFields) } }];
}

function update(command: Extract<CategoryCommand, { type: 'UpdateCategory' }>, state: CategoryState): CategoryEvent[] {
  const current = existing(state);
  const { customFields, ...rest } = command.changes;
  const proposed: Partial<CategoryDetails> = { ...rest, ...(customFields ? { customFields: normalizeFields(customFields) } : {}) };
  const changed = changedFields<CategoryDetails>(current, proposed);
  return changed ? [{ type: 'CategoryUpdated', data: { categoryId: command.categoryId, changes: changed.changes } }] : [];
}

function reorder(command: Extract<CategoryCommand, { type: 'ReorderCategory' }>, state: CategoryState): CategoryEvent[] {
  const current = existing(state);
  if (current.order === command.order) return [];
  return [{ type: 'CategoryReordered', data: { categoryId: command.categoryId, order: command.order } }];
}

function remove(command: Extract<CategoryCommand, { type: 'DeleteCategory' }>, state: CategoryState): CategoryEvent[] {
  existing(state);
  return [{ type: 'CategoryDeleted', data: { categoryId: command.categoryId } }];
}

export function decide(command: CategoryCommand, state: CategoryState): CategoryEvent[] {
  switch (command.type) {
    case 'CreateCategory':
      return create(command, state);
    case 'UpdateCategory':
      return update(command, state);
    case 'ReorderCategory':
      return reorder(command, state);
    case 'DeleteCategory':
      return remove(command, state);
  }
}

export const categoryDecider: Decider<CategoryCommand, CategoryEvent, CategoryState> = { decide, evolve, initialState };
