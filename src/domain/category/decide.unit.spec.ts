import { DeciderSpecification } from '../../../test/support/decider';
import { ConflictError, NotFoundError } from '#contract/errors';
import { type CategoryEvent, evolve, initialState } from './category';
import { decide } from './decide';
import { createCategorySchema } from '#contract/categories';

const given = DeciderSpecification.for({ decide, evolve, initialState });

const BILLING = createCategorySchema.parse({
  name: 'Billing',
  customFields: [
    { fieldName: 'invoice', fieldType: 'text', prompt: 'Invoice number' },
    { fieldName: 'amount', fieldType: 'number', prompt: 'Amount', required: false },
  ],
});
const CREATED: CategoryEvent = {
  type: 'CategoryCreated',
  data: {
    categoryId: 'c1',
    name: 'Billing',
    description: '',
    color: '#007bff',
    order: 0,
    isActive: true,
    customFields: [
      { fieldName: 'invoice', fieldType: 'text', prompt: 'Invoice number', placeholder: '', required: true, validation: {}, order: 0 },
      { fieldName: 'amount', fieldType: 'number', prompt: 'Amount', placeholder: '', required: false, validation: {}, order: 1 },
    ],
  },
};

describe('Category', () => {
  describe('when created', () => {
    it('records the defaults of docs/product.md and orders custom fields as added', () => {
      given([]).when({ type: 'CreateCategory', categoryId: 'c1', input: BILLING }).then([CREATED]);
    });

    it('refuses to create the same category twice', () => {
      given([CREATED]).when({ type: 'CreateCategory', categoryId: 'c1', input: BILLING }).thenThrows(ConflictError);
    });
  });

  describe('when updated', () => {
    it('records only the fields that change', () => {
      given([CREATED])
        .when({ type: 'UpdateCategory', categoryId: 'c1', changes: { name: 'Billing', color: '#ff0000' } })
        .then([{ type: 'CategoryUpdated', data: { categoryId: 'c1', changes: { color: '#ff0000' } } }]);
    });

    it('records nothing when nothing changes', () => {
      given([CREATED])
        .when({ type: 'UpdateCategory', categoryId: 'c1', changes: { name: 'Billing' } })
        .then([]);
    });

    it('refuses to update a category that does not exist or was deleted', () => {
      given([])
        .when({ type: 'UpdateCategory', categoryId: 'c1', changes: { name: 'X' } })
        .thenThrows(NotFoundError);
      given([CREATED, { type: 'CategoryDeleted', data: { categoryId: 'c1' } }])
        .when({ type: 'UpdateCategory', categoryId: 'c1', changes: { name: 'X' } })
        .thenThrows(NotFoundError);
    });
  });

  describe('when reordered', () => {
    it('records the new order and ignores an unchanged one', () => {
      given([CREATED])
        .when({ type: 'ReorderCategory', categoryId: 'c1', order: 3 })
        .then([{ type: 'CategoryReordered', data: { categoryId: 'c1', order: 3 } }]);
      given([CREATED]).when({ type: 'ReorderCategory', categoryId: 'c1', order: 0 }).then([]);
    });
  });

  describe('when deleted', () => {
    it('records the deletion once', () => {
      given([CREATED])
        .when({ type: 'DeleteCategory', categoryId: 'c1' })
        .then([{ type: 'CategoryDeleted', data: { categoryId: 'c1' } }]);
      given([CREATED, { type: 'CategoryDeleted', data: { categoryId: 'c1' } }])
        .when({ type: 'DeleteCategory', categoryId: 'c1' })
        .thenThrows(NotFoundError);
    });
  });
});

describe('Category input', () => {
  it('rejects a blank name, a bad colour, a negative order and unknown fields', () => {
    const result = createCategorySchema.safeParse({ name: '  ', color: 'red', order: -1, extra: true });
    expect(result.success).toBe(false);
    const messages = result.error!.issues.map((issue) => issue.message);
    expect(messages).toEqual(expect.arrayContaining(['Name is required', 'Colour must be a hex colour like #007bff', 'Order must be at least 0']));
    expect(result.error!.issues.some((issue) => issue.code === 'unrecognized_keys')).toBe(true);
  });

  it('rejects custom fields without name or prompt and with inverted bounds', () => {
    const result = createCategorySchema.safeParse({
      name: 'X',
      customFields: [{ fieldName: '', fieldType: 'text', prompt: '', validation: { minLength: 5, maxLength: 2 } }],
    });
    expect(result.error!.issues.map((issue) => issue.message)).toEqual(
      expect.arrayContaining(['Field name is required', 'Prompt is required', 'Minimum length cannot exceed maximum length']),
    );
  });
});
