/** The control plane's HTTP client for the CLI and the console (`@meshplane/core/http-client`); runs in a browser. */
export { ApiError, type FieldError, type Problem, problemOf, retryAfterSeconds } from "./api-error";
export { type HttpAnswer, type HttpClient, type HttpClientOptions, type HttpRequestOptions, createHttpClient } from "./client";
