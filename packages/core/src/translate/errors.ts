import { MeshplaneError } from "../errors";

/**
 * A bug in the translator or an input that upstream validation should have made impossible (two
 * discovered objects with one name, two different objects generated under one name). User mistakes
 * never throw: they are reported into statuses.
 */
export class TranslateError extends MeshplaneError {}
