/** Artifact binaries: content-addressed storage, hashing off the event loop (hash-pool.ts), Range downloads. */
export { ArtifactStorage } from './storage.js';
export { artifactReply, md5sumReply } from './download.js';
