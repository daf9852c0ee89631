/** @jest-environment ./test/support/jsdom-environment.js */
import '@testing-library/jest-dom';
import { render } from '@testing-library/react';
import { Highlighted } from './SearchDialog';

describe('Highlighted snippet', () => {
  it('when the server sends offsets, then exactly those spans are marked and the rest is plain text', () => {
    const { container } = render(
      <Highlighted
        text="Please REFUND the café order"
        highlights={[
          [7, 13],
          [18, 22],
        ]}
      />,
    );
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual(['REFUND', 'café']);
    expect(container.textContent).toBe('Please REFUND the café order');
  });

  it('when the text holds markup, then it shows as text and builds no element', () => {
    const { container } = render(<Highlighted text={'<img src=x onerror="alert(1)"> refund'} highlights={[[31, 37]]} />);
    expect(container.querySelector('img')).toBeNull();
    expect(container.textContent).toBe('<img src=x onerror="alert(1)"> refund');
    expect(container.querySelector('mark')).toHaveTextContent('refund');
  });

  it('when offsets overlap or run past the text, then they are skipped rather than garbling it', () => {
    const { container } = render(
      <Highlighted
        text="refund refund"
        highlights={[
          [0, 6],
          [3, 9],
          [7, 99],
        ]}
      />,
    );
    expect(container.textContent).toBe('refund refund');
    expect([...container.querySelectorAll('mark')].map((mark) => mark.textContent)).toEqual(['refund']);
  });
});
