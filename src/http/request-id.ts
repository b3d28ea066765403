/** The header that carries a request's id, both ways. */
export const REQUEST_ID_HEADER = 'x-request-id';
/** What a client's X-Request-Id must look like to be used (and logged) as it is; the OpenAPI document states it too. */
export const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;
