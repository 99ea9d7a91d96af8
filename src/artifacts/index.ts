/** Artifact binaries: content-addressed storage, hashing off the event loop, Range downloads. */
export { ArtifactStorage, type ArtifactStorageOptions, type IngestOptions, type Ingested, type StoredBinary } from './storage.js';
export { createHashPool, hashWorkerFilename, type Digests, type HashJob, type HashPool, type HashPoolOptions } from './hash-pool.js';
export { artifactReply, contentDisposition, md5sumReply, type ArtifactFile, type ArtifactReplyOptions } from './download.js';
export { ifRangeAllowsPartial, parseRange, MAX_RANGES, type ByteRange, type RangeRequest } from './range.js';
export { evaluatePreconditions, httpDate, type Precondition } from './conditional.js';
