/** The collaboration server's ports over HTTP (a collaboration deployment apart from the API). */
export { HttpCollabAuthorizer, type HttpCollabOptions, HttpCollabPersistence } from "./collab-http.ts";
