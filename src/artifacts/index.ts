/** Artifact binaries: content-addressed storage, hashing off the event loop (hash-pool.ts), Range downloads. */
export { ArtifactStorage } from './storage.js';
export { artifactReply, contentRange, downloadHeaders, md5sumReply, validatorHeaders } from './download.js';
