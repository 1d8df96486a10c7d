// The contract's types, as `npm run codegen` writes them from openapi/gateway.yaml. In the
// repository the kit's sources read them from generated/; `npm run build` (so `npm pack`) compiles
// the kit with the generated file itself in this one's place, so that the package ships the
// contract it was built from and needs nothing outside its folder (scripts/build.mjs).
export type * from '../../../generated/gateway.ts';
