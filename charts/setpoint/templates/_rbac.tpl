{{/* The rules of the operator's rights in the namespaces it works in:
the ClusterRole's (manifests/rbac/cluster_role.yaml) but for classes and
the metrics endpoint's reviews, which exist only cluster-wide. */}}
{{- define "setpoint.namespacedRules" }}
  - apiGroups: [postgres.setpoint.dev]
    resources: [postgresclusters, postgresdatabases]
    verbs: [list, watch, patch]
  - apiGroups: [postgres.setpoint.dev]
    resources: [postgresclusters/status, postgresdatabases/status]
    verbs: [update]
  - apiGroups: [postgres.setpoint.dev]
    resources: [postgresclusters/finalizers, postgresdatabases/finalizers]
    verbs: [update]
  - apiGroups: [postgresql.cnpg.io]
    resources: [clusters, poolers, scheduledbackups, databases, databaseroles]
    verbs: [list, watch, create, patch, delete]
  - apiGroups: [postgresql.cnpg.io]
    resources: [databaseroles]
    verbs: [get]
  - apiGroups: [apps]
    resources: [deployments]
    verbs: [list, watch]
  - apiGroups: [postgresql.cnpg.io]
    resources: [backups]
    verbs: [get, create, patch]
  - apiGroups: [barmancloud.cnpg.io]
    resources: [objectstores]
    verbs: [list, watch, create, patch, delete]
  - apiGroups: [monitoring.coreos.com]
    resources: [podmonitors]
    verbs: [list, watch, create, patch, delete]
  - apiGroups: [""]
    resources: [secrets]
    verbs: [get, list, watch, create, patch, delete]
  - apiGroups: [""]
    resources: [configmaps]
    verbs: [get, list, watch, create, patch, delete]
  - apiGroups: [""]
    resources: [services]
    verbs: [get, list, watch, create, patch, delete]
  - apiGroups: [""]
    resources: [events]
    verbs: [create, patch]
{{- end -}}

{{/* What exists only cluster-wide: reading classes, and the reviews of
each /metrics scrape. */}}
{{- define "setpoint.classRule" }}
  - apiGroups: [postgres.setpoint.dev]
    resources: [postgresclusterclasses]
    verbs: [list, watch{{ if not .Values.watchNamespaces }}, patch{{ end }}]
{{- end -}}

{{- define "setpoint.reviewRules" }}
  - apiGroups: [authentication.k8s.io]
    resources: [tokenreviews]
    verbs: [create]
  - apiGroups: [authorization.k8s.io]
    resources: [subjectaccessreviews]
    verbs: [create]
{{- end -}}
