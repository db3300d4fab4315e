package database

import "time"

// Requeue intervals of expected waits. Each is a safety net: the event
// that ends the wait (a cluster status change, a CNPG Database status
// change) wakes the key anyway, except where noted.
const (
	// clusterMissingRecheck: creating the cluster wakes us through the
	// ByClusterRef index too; this only bounds a missed event.
	clusterMissingRecheck  = 10 * time.Second
	clusterNotReadyRecheck = 30 * time.Second
	// clusterReplicaRecheck: a replica stays one until its spec names it
	// primary, and that change of the cluster wakes us.
	clusterReplicaRecheck = 5 * time.Minute
	// externalRecheck is slow on purpose: fixing an external Secret sends
	// us no event (it is not labelled, so not watched), and a hot retry
	// of a user's mistake helps no one.
	externalRecheck = time.Minute
	// provisionRecheck covers DatabaseRoles and CNPG Databases being
	// applied. Both end with an event we watch (their status), so this is only a safety net: polling 1,000
	// waiting databases every few seconds costs CPU for nothing.
	provisionRecheck = 30 * time.Second
	// failedRecheck re-reads a Failed state another controller owns (a
	// role conflict, a role CNPG cannot reconcile).
	failedRecheck = time.Minute
	// sqlRecheck follows a Postgres error: the server restarting or
	// failing over is an expected wait, not a hot retry loop.
	sqlRecheck = 10 * time.Second
	// cleanupRecheck paces deletion while CNPG drops databases and roles.
	cleanupRecheck = 5 * time.Second
)
