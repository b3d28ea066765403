/** `npm run schema:print`: rewrites schema.graphql from the Pothos schema. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { printedSchema } from '../src/modules';

writeFileSync(path.join(__dirname, '..', 'schema.graphql'), printedSchema());
console.log('wrote schema.graphql');
