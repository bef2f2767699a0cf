import { Migration20261121000000_initial } from './Migration20261121000000_initial';

/** Every migration in order; listed so bundlers and test runners need no file globbing. */
export const migrationsList = [
  { name: 'Migration20261121000000_initial', class: Migration20261121000000_initial },
];
