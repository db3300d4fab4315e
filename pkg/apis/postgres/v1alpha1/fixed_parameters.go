package v1alpha1

// FixedParameters are the postgresql.conf parameters a user may not set,
// lowercase. The CRDs refuse them in any spelling (a CEL rule on
// postgresqlConfig spells out this same list; TestFixedParametersMatchCRD
// keeps the two equal) and the cluster controller refuses them again for
// objects stored before the rule existed.
//
// The list is CloudNativePG's own: FixedConfigurationParameters in
// github.com/cloudnative-pg/cloudnative-pg v1.30.0 pkg/postgres/configuration.go,
// both its "fixed" entries (values the operator manages: port, ssl*,
// archive_command, recovery_*, synchronous_standby_names, ...) and its
// "blocked" ones (values that must stay at their default for the operator
// to work: listen_addresses, logging_collector, log_*, unix_socket_*, ...).
// CNPG refuses a fixed parameter unless its value equals the one it would
// write anyway; setpoint refuses them all, since such a setting does
// nothing. Added here: the configuration-file directives include,
// include_dir and include_if_exists, which CNPG would write into
// postgresql.conf as directives and so read arbitrary files.
var FixedParameters = []string{
	"allow_system_table_mods",
	"archive_cleanup_command",
	"archive_command",
	"archive_mode",
	"bonjour",
	"bonjour_name",
	"cluster_name",
	"config_file",
	"data_directory",
	"data_sync_retry",
	"event_source",
	"external_pid_file",
	"hba_file",
	"hot_standby",
	"ident_file",
	"include",
	"include_dir",
	"include_if_exists",
	"jit_provider",
	"listen_addresses",
	"log_destination",
	"log_directory",
	"log_file_mode",
	"log_filename",
	"log_rotation_age",
	"log_rotation_size",
	"log_truncate_on_rotation",
	"logging_collector",
	"pg_failover_slots.primary_dsn",
	"pg_failover_slots.standby_slot_names",
	"port",
	"primary_conninfo",
	"primary_slot_name",
	"promote_trigger_file",
	"recovery_end_command",
	"recovery_min_apply_delay",
	"recovery_target",
	"recovery_target_action",
	"recovery_target_inclusive",
	"recovery_target_lsn",
	"recovery_target_name",
	"recovery_target_time",
	"recovery_target_timeline",
	"recovery_target_xid",
	"restart_after_crash",
	"restore_command",
	"shared_preload_libraries",
	"ssl",
	"ssl_ca_file",
	"ssl_cert_file",
	"ssl_crl_file",
	"ssl_dh_params_file",
	"ssl_ecdh_curve",
	"ssl_key_file",
	"ssl_passphrase_command",
	"ssl_passphrase_command_supports_reload",
	"ssl_prefer_server_ciphers",
	"stats_temp_directory",
	"synchronized_standby_slots",
	"synchronous_standby_names",
	"syslog_facility",
	"syslog_ident",
	"syslog_sequence_numbers",
	"syslog_split_messages",
	"temp_tablespaces",
	"unix_socket_directories",
	"unix_socket_group",
	"unix_socket_permissions",
}
