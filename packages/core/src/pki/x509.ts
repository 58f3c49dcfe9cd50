// @peculiar/x509 resolves its algorithm providers through tsyringe, which refuses to load unless
// Reflect.getMetadata exists. ES modules evaluate their imports in source order, so the polyfill
// runs before the library as long as every pki file imports the library through this one file.
// The polyfill only adds Reflect.* metadata functions; it does no I/O.
// oxlint-disable-next-line import/no-unassigned-import -- a polyfill is imported for its effect alone
import "reflect-metadata";

export * as x509 from "@peculiar/x509";
