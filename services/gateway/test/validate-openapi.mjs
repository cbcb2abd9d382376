// Validates the OpenAPI document on stdin with @seriousme/openapi-schema-validator (an ES
// module jest cannot load, so the OpenAPI test runs it as a child process) and prints
// {valid, version, errors} as JSON.
import { Validator } from '@seriousme/openapi-schema-validator';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const validator = new Validator();
const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
process.stdout.write(JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? [] }));
