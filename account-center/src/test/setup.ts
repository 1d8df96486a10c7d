import { afterEach } from 'vitest';
import { cleanup } from '@testing-library/react';

// Testing Library unmounts between tests only where a global afterEach exists; vitest has none by default.
afterEach(() => {
  cleanup();
});
