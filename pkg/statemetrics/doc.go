// Package statemetrics exports the state of every PostgresCluster and
// PostgresDatabase the operator watches, kube-state-metrics style: the
// phase as a label set (one series per phase, 1 for the current one) and
// each condition with its status and reason. They are read from the
// informers' caches at scrape time, so a deleted object's series are gone
// at the next scrape and nothing is kept that could go stale; only the
// leader has caches, so only the leader exports them.
package statemetrics
