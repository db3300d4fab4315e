// Package cluster is the PostgresCluster controller. A key without a
// namespace is a PostgresClusterClass: its pass keeps or drops the
// class-in-use finalizer (syncClass). A PostgresCluster's pass (sync.go)
// runs, in this order:
//
//  1. skip while the cache has not seen our own last write of the object
//     (cachelag.Expectations);
//  2. on deletion, carry out clusterDeletionPolicy (finalize);
//  3. add the finalizer, and read one observation snapshot (observe):
//     the children several components read are read by snapshot.go;
//     a component that alone reads a kind (the Poolers, ScheduledBackups,
//     PodMonitor, metrics Service) registers that kind's informer handler and reads its
//     part of the snapshot itself (watch.go);
//  4. merge the class into the cluster's spec (resolveAgainst): an
//     invalid result is Failed and not retried until the cluster or its
//     class changes;
//  5. plan storage auto-grow from the collector's last sample, and ensure
//     the class's class-in-use finalizer;
//  6. run the ordered component pipeline on the shared runner
//     (docs/adr/0002-component-pipelines.md; pipeline.Run over
//     components(): secret, objectStore, provisioner, monitor, pooler,
//     backup, configMap, podMonitor, metricsService), each Reconcile
//     (actuate) then Observe (converge), stopping at the first component
//     not Ready and marking the conditions after it Blocked
//     (docs/adr/0005-conditions-after-a-blocker.md); while CNPG brings a
//     new Cluster up, the monitor's objects are created ahead of its
//     turn (monitor_ahead.go; docs/adr/0006-steps-prepared-ahead.md);
//  7. settle the storage decision; compute the status to write with
//     conclude (conclude.go, a pure function of what the pass built, the
//     pipeline's outcome and the collector's sample: phase and Ready, the
//     health conditions, status.postgres); write it once, or not at all
//     when unchanged (pipeline.StatusWriter;
//     docs/adr/0007-one-status-write-per-pass.md); then the storage Events.
//
// The database's roles are not the cluster's concern: each
// PostgresDatabase writes CNPG DatabaseRoles for its own; the provisioner
// only empties the spec.managed.roles an earlier setpoint wrote
// (provisioner_roles_release.go). The cluster's one role is setpoint's own,
// setpoint_monitor, which its SQL logs in as unless superuser access is on
// (superuser_access.go, component_monitor.go, postgres_conn.go). The
// pipeline is described for users in docs/concepts/pipelines.md.
package cluster
