package password

// AwaitPrepared lets the external tests wait for Prepare's work without hashing.
var AwaitPrepared = awaitPrepared
