package cluster

import (
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// The identity forms of an object store (s3Credentials.inheritFromIAMRole,
// azureCredentials.inheritFromAzureAD, googleCredentials.gkeEnvironment)
// authenticate as the Pods' ServiceAccount, which CloudNativePG makes and
// names after the cluster. A cloud binds an identity to it through its
// annotations (IRSA's eks.amazonaws.com/role-arn, GKE's
// iam.gke.io/gcp-service-account), which CloudNativePG copies from the
// Cluster's serviceAccountTemplate. CloudNativePG's serviceAccountName (a
// ServiceAccount of the platform's, shared) is not used: the barman-cloud
// plugin v0.14 grants its sidecar the ObjectStore and Secrets through a
// RoleBinding to the ServiceAccount named after the cluster, so a sidecar
// running as another could read neither.

// withServiceAccount adds the object store's serviceAccountAnnotations to
// the CNPG Cluster's serviceAccountTemplate. Without them the field is
// left out, and so leaves the CNPG Cluster with our next apply;
// CloudNativePG keeps the annotations it already put on the
// ServiceAccount (it only adds the template's).
func withServiceAccount(spec *cnpgac.ClusterSpecApplyConfiguration, os *pgv1.ObjectStoreSpec) {
	if os == nil || len(os.ServiceAccountAnnotations) == 0 {
		return
	}
	spec.WithServiceAccountTemplate(cnpgac.ServiceAccountTemplate().WithMetadata(
		cnpgac.ServiceAccountMetadata().WithAnnotations(os.ServiceAccountAnnotations)))
}

// serviceAccountMatches: the CNPG Cluster's template has the annotations
// we set (another manager's beside them are not drift).
func serviceAccountMatches(s cnpgv1.ClusterSpec, os *pgv1.ObjectStoreSpec) bool {
	if os == nil || len(os.ServiceAccountAnnotations) == 0 {
		return true
	}
	if s.ServiceAccountTemplate == nil {
		return false
	}
	have := s.ServiceAccountTemplate.Metadata.Annotations
	for k, v := range os.ServiceAccountAnnotations {
		if got, ok := have[k]; !ok || got != v {
			return false
		}
	}
	return true
}
