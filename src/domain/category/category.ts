import type { DomainEvent } from '../shared/decider';
import type { CategoryDetails } from '#contract/categories';

export const categoryStream = (categoryId: string) => `category-${categoryId}`;

export type CategoryEvent =
  | DomainEvent<'CategoryCreated', { categoryId: string } & CategoryDetails>
  | DomainEvent<'CategoryUpdated', { categoryId: string; changes: Partial<CategoryDetails> }>
  | DomainEvent<'CategoryReordered', { categoryId: string; order: number }>
  | DomainEvent<'CategoryDeleted', { categoryId: string }>;

export type CategoryState = { status: 'none' } | ({ status: 'active'; categoryId: string } & CategoryDetails) | { status: 'deleted'; categoryId: string };

export const initialState: CategoryState = { status: 'none' };

export function evolve(state: CategoryState, event: CategoryEvent): CategoryState {
  switch (event.type) {
    case 'CategoryCreated': {
      const { categoryId, ...details } = event.data;
      return { status: 'active', categoryId, ...details };
    }
    case 'CategoryUpdated':
      return state.status === 'active' ? { ...state, ...event.data.changes } : state;
    case 'CategoryReordered':
      return state.status === 'active' ? { ...state, order: event.data.order } : state;
    case 'CategoryDeleted':
      return { status: 'deleted', categoryId: event.data.categoryId };
  }
}
