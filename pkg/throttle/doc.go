// Package throttle is the operator's client-side rate limiter: a token
// bucket like client-go's, with the same QPS and burst, that hands its
// tokens to urgent requests first.
//
// Under a burst of work (a thousand new PostgresDatabases) the database
// passes' requests fill the limiter's queue, and a PostgresCluster's pass
// — a few requests that every database of that cluster waits on — queues
// behind them. Serving the cluster's requests first spends the same
// tokens in a better order: the API server sees the same rate.
package throttle
