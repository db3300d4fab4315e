package collector

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// sampleSQL is the collector's one statement per sample: every figure in
// a single round trip, from catalogs and functions that need no lock on
// user tables. pg_current_wal_lsn() fails during recovery, so the lag is
// read only on a primary (nil there without standbys: max of nothing).
// Connections are client backends, the ones max_connections limits (the
// collector's own session among them). The synchronous standbys are the
// ones a commit may wait for now: sync (by priority) or quorum (any n).
// A server in recovery (a replica cluster's designated primary) reports
// the commit time of the last transaction it replayed: NULL on a
// primary, and before the first replayed commit; and the state of its
// WAL receiver, NULL when it streams from nowhere (it replays the archive
// alone).
const sampleSQL = `SELECT
  (SELECT coalesce(sum(pg_database_size(oid)), 0)::bigint FROM pg_database),
  (SELECT coalesce(sum(size), 0)::bigint FROM pg_ls_waldir()),
  pg_is_in_recovery(),
  current_setting('transaction_read_only')::bool,
  (SELECT count(*)::int FROM pg_stat_activity WHERE backend_type = 'client backend'),
  current_setting('max_connections')::int,
  CASE WHEN pg_is_in_recovery() THEN NULL ELSE
    (SELECT max(pg_wal_lsn_diff(pg_current_wal_lsn(), replay_lsn))::bigint FROM pg_stat_replication)
  END,
  current_setting('synchronous_standby_names'),
  (SELECT array_agg(application_name ORDER BY application_name) FROM pg_stat_replication
    WHERE sync_state IN ('sync', 'quorum')),
  CASE WHEN pg_is_in_recovery() THEN pg_last_xact_replay_timestamp() END,
  CASE WHEN pg_is_in_recovery() THEN (SELECT status FROM pg_stat_wal_receiver) END`

// query reads one sample's figures over conn; ctx bounds the statement
// (and the session's statement_timeout bounds it on the server).
func query(ctx context.Context, conn *pgx.Conn) (Sample, error) {
	var s Sample
	var readOnly bool
	var conns, maxConns int32
	var syncNames string
	var receiver *string
	err := conn.QueryRow(ctx, sampleSQL).Scan(&s.DatabaseBytes, &s.WALBytes, &s.InRecovery, &readOnly,
		&conns, &maxConns, &s.ReplicationLagBytes, &syncNames, &s.SynchronousStandbys, &s.LastReplayed, &receiver)
	if err != nil {
		return Sample{}, fmt.Errorf("read health: %w", err)
	}
	s.AcceptsWrites = !s.InRecovery && !readOnly
	s.Streaming = receiver != nil && *receiver == "streaming"
	s.Connections, s.MaxConnections = int(conns), int(maxConns)
	if !s.InRecovery {
		// A standby's setting is what it would ask once promoted, not
		// what commits wait for now.
		s.SynchronousRequired = synchronousRequired(syncNames)
	}
	return s, nil
}
