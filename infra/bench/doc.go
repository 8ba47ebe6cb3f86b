// Package bench is `make bench`'s report of every operation of the API: each one sent through
// the full local path (API Gateway event → aws-lambda-go-api-proxy → handler → DynamoDB Local) in
// rounds, with its p50 and p99, allocations, sequential DynamoDB round trips and the request units AWS
// would bill for it, next to two baselines measured in the same run: a raw GetItem through the same SDK
// client and one bare argon2id hash at the service's parameters. Each operation's target is printed
// with it (BenchmarkOperations in bench_test.go).
//
// The non-test files hold what the benchmark measures with: Recorder, an SDK middleware that asks
// DynamoDB for the consumed capacity of every call and records it with the call's start and end;
// the billing rules that turn DynamoDB Local's figures into AWS's; and the table.
//
// It is also `make scale`'s (BenchmarkScale in scale_test.go): every list of SPEC §11 at sizes from 100
// to 100,000 items in the caller's scope, its table and the goals it is held to (scale.go), and its
// charts (chart.go, with gonum's plot package: infra/ only, never what is deployed).
package bench
