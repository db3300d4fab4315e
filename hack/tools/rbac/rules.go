package rbac

// The one source of setpoint's RBAC: every rule the operator is granted,
// once. `make generate` renders these tables into
// manifests/rbac/{cluster_role,leader_election_role,metrics_reader_role}.yaml,
// overlays/namespaced/{role,class_reader}.yaml and
// charts/setpoint/templates/_rbac.tpl, and `make verify` fails when one of
// them is stale. Add a rule here only for a request the code sends: test/e2e
// TestShippedRBACSuffices fails on a granted verb the lifecycle never used.

// Operator is what the operator's code does: the ClusterRole of a
// cluster-wide install, in this order. A namespace-scoped install grants
// the Namespaced rules in a Role per watched namespace and the Cluster
// rules (with their ScopedInstallVerbs) in a ClusterRole of its own.
var Operator = []Rule{
	{
		Why:       `patch: the class-in-use finalizer.`,
		APIGroups: []string{"postgres.setpoint.dev"},
		Resources: []string{"postgresclusterclasses"},
		Verbs:     []string{"list", "watch", "patch"},
		Scope:     Cluster,
		// A namespace-scoped operator never writes a class: no
		// class-in-use finalizer.
		ScopedInstallVerbs: []string{"list", "watch"},
	},
	{
		Why:       `patch: the finalizers, and removing a recreate request carried out.`,
		APIGroups: []string{"postgres.setpoint.dev"},
		Resources: []string{"postgresclusters", "postgresdatabases"},
		Verbs:     []string{"list", "watch", "patch"},
	},
	{
		APIGroups: []string{"postgres.setpoint.dev"},
		Resources: []string{"postgresclusters/status", "postgresdatabases/status"},
		Verbs:     []string{"update"},
	},
	{
		Why: `Children carry blockOwnerDeletion owner references, which the
			OwnerReferencesPermissionEnforcement admission plugin (OpenShift, and
			the test control plane) allows only with update on the owner's
			finalizers: a check by admission, never a request of its own.`,
		APIGroups: []string{"postgres.setpoint.dev"},
		Resources: []string{"postgresclusters/finalizers", "postgresdatabases/finalizers"},
		Verbs:     []string{"update"},
	},
	{
		APIGroups: []string{"postgresql.cnpg.io"},
		Resources: []string{"clusters", "poolers", "scheduledbackups", "databases", "databaseroles"},
		Verbs:     []string{"list", "watch", "create", "patch", "delete"},
	},
	{
		Why: `get: a DatabaseRole whose create found the name taken is read and
			judged (the cache had not seen it).`,
		APIGroups: []string{"postgresql.cnpg.io"},
		Resources: []string{"databaseroles"},
		Verbs:     []string{"get"},
	},
	{
		Why: `Read only: the Deployments CNPG runs PgBouncer in (cached with
			cnpg.io/podRole=pooler), whose availability says a pooler is ready.`,
		APIGroups: []string{"apps"},
		Resources: []string{"deployments"},
		Verbs:     []string{"list", "watch"},
	},
	{
		Why: `On-demand backups: created once per request (get is the ownership
			check before the first write), never deleted; the backup before a
			major upgrade is read until it completes.`,
		APIGroups: []string{"postgresql.cnpg.io"},
		Resources: []string{"backups"},
		Verbs:     []string{"get", "create", "patch"},
	},
	{
		Why: `A major upgrade's preflight: a short-lived Pod of the target image
			lists the declared extensions it lacks (get is the ownership check
			before the create; delete once read); list finds the Pod of a failed
			pg_upgrade Job, whose log is quoted. list and watch also cache the
			Pods CloudNativePG labels with a cluster, trimmed to whether they can
			be scheduled, so a Pod the scheduler cannot place is named in status.`,
		APIGroups: []string{""},
		Resources: []string{"pods"},
		Verbs:     []string{"get", "list", "watch", "create", "delete"},
	},
	{
		Why: `A failed major upgrade: CloudNativePG's pg_upgrade Job is found by
			its labels, and the last lines of its Pod's log are quoted in status
			before CloudNativePG's rollback deletes them. Read only.`,
		APIGroups: []string{"batch"},
		Resources: []string{"jobs"},
		Verbs:     []string{"list"},
	},
	{
		APIGroups: []string{""},
		Resources: []string{"pods/log"},
		Verbs:     []string{"get"},
	},
	{
		Why: `A major upgrade's preflight reads the image the catalog gives the
			target major. Read only.`,
		APIGroups: []string{"postgresql.cnpg.io"},
		Resources: []string{"imagecatalogs"},
		Verbs:     []string{"get"},
	},
	{
		APIGroups: []string{"postgresql.cnpg.io"},
		Resources: []string{"clusterimagecatalogs"},
		Verbs:     []string{"get"},
		Scope:     Cluster,
	},
	{
		APIGroups: []string{"barmancloud.cnpg.io"},
		Resources: []string{"objectstores"},
		Verbs:     []string{"list", "watch", "create", "patch", "delete"},
	},
	{
		Why: `The Prometheus Operator's PodMonitor <cluster>-metrics of a cluster
			with monitoring enabled (optional: without the CRD nothing is asked).`,
		APIGroups: []string{"monitoring.coreos.com"},
		Resources: []string{"podmonitors"},
		Verbs:     []string{"list", "watch", "create", "patch", "delete"},
	},
	{
		Why: `get: CNPG's <cluster>-ca Secret and external superuser/role Secrets,
			which are not labelled and so not cached.`,
		APIGroups: []string{""},
		Resources: []string{"secrets"},
		Verbs:     []string{"get", "list", "watch", "create", "patch", "delete"},
	},
	{
		APIGroups: []string{""},
		Resources: []string{"configmaps"},
		Verbs:     []string{"get", "list", "watch", "create", "patch", "delete"},
	},
	{
		APIGroups: []string{""},
		Resources: []string{"services"},
		Verbs:     []string{"get", "list", "watch", "create", "patch", "delete"},
	},
	{
		APIGroups: []string{""},
		Resources: []string{"events"},
		Verbs:     []string{"create", "patch"},
	},
	{
		Why: `Namespaces' labels, for a PostgresCluster that admits tenants by
			tenants.namespaceSelector (ADR-0016): read only.`,
		APIGroups: []string{""},
		Resources: []string{"namespaces"},
		Verbs:     []string{"list", "watch"},
		Scope:     Cluster,
	},
	{
		Why: `Read only: CloudNativePG's instance Role of each cluster (cached
			with cnpg.io/cluster, trimmed to the Secrets it names). The moment
			it names a new DatabaseRole's password Secret, the role CNPG's
			instance manager was refused for it is retried (ADR 0020).`,
		APIGroups: []string{"rbac.authorization.k8s.io"},
		Resources: []string{"roles"},
		Verbs:     []string{"list", "watch"},
	},
	{
		Why: `/metrics is served over HTTPS and each scrape is authenticated and
			authorized by the API server.`,
		APIGroups: []string{"authentication.k8s.io"},
		Resources: []string{"tokenreviews"},
		Verbs:     []string{"create"},
		Scope:     Cluster,
	},
	{
		APIGroups: []string{"authorization.k8s.io"},
		Resources: []string{"subjectaccessreviews"},
		Verbs:     []string{"create"},
		Scope:     Cluster,
	},
}

// NamespaceSelector is what --watch-namespace-selector adds, in either
// install mode, and only with it: the Namespaces the selector matches,
// listed and watched as metadata, to learn which join and leave.
// Everything the operator does in a selected namespace is Operator's
// namespaced rules, granted there as in any watched namespace.
var NamespaceSelector = []Rule{
	{
		Why: `Which namespaces --watch-namespace-selector selects, and when that
			changes: a metadata-only, label-selected list and watch.`,
		APIGroups: []string{""},
		Resources: []string{"namespaces"},
		Verbs:     []string{"list", "watch"},
		Scope:     Cluster,
	},
}

// LeaderElection is the Role in the operator's own namespace: Leases for
// leader election, nowhere else.
var LeaderElection = []Rule{
	{
		APIGroups: []string{"coordination.k8s.io"},
		Resources: []string{"leases"},
		Verbs:     []string{"get", "create", "update", "watch"},
	},
}

// MetricsReader is the ClusterRole a scraper of /metrics is bound to.
var MetricsReader = []Rule{
	{
		NonResourceURLs: []string{"/metrics"},
		Verbs:           []string{"get"},
	},
}
