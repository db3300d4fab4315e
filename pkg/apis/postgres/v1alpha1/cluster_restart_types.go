package v1alpha1

// RestartAnnotation on a PostgresCluster asks for a rolling restart of
// its instances: its value is a request id of the caller's choosing (a
// timestamp). setpoint forwards each new value to its CNPG Cluster as
// CloudNativePG's own kubectl.kubernetes.io/restartedAt, and
// CloudNativePG restarts the replicas one by one, then the primary (by a
// switchover or in place, per the cluster's primaryUpdateMethod).
// Setting the same value again does nothing; removing it restarts
// nothing. docs/adr/0018-day-two-actions-through-cnpg.md says why the
// request goes through setpoint.
const RestartAnnotation = "postgres.setpoint.dev/restart"
