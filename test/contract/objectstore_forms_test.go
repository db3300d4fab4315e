package contract_test

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// objectStoreForms is what the operator writes into an ObjectStore's
// spec.configuration for each credential form of backup.objectStore, as
// pkg/controller/cluster's TestEachCredentialFormGoesToThePluginsFields
// holds its rendering to.
const objectStoreForms = "../../pkg/controller/cluster/testdata/objectstore-forms.json"

// Every credential form setpoint writes (S3 keys and IAM role, an
// endpoint CA, Azure's storage key, SAS token and identity, Google's
// service-account key and GKE workload identity) is an ObjectStore the
// barman-cloud plugin's real CRD (v0.14.0, from its module zip) takes with
// strict field validation, and reads back through setpoint's typed subset
// unchanged. The plugin has no admission webhook for ObjectStores (its
// release manifest registers none): its CRD's schema is all it checks
// when one is written; barman-cloud reads the credentials when it
// archives. Azure and Google Cloud Storage cannot be reached from here, so
// whether the clouds accept these credentials is not tested.
func TestObjectStoreCredentialFormsApplyStrictly(t *testing.T) {
	ns := newNamespace(t)
	data, err := os.ReadFile(objectStoreForms)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Forms []struct {
			Name          string         `json:"name"`
			Configuration map[string]any `json:"configuration"`
		} `json:"forms"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Forms) < 8 {
		t.Fatalf("%s lists %d forms, want the 8 credential forms", objectStoreForms, len(doc.Forms))
	}
	for i, f := range doc.Forms {
		t.Run(f.Name, func(t *testing.T) {
			name := "shop-" + string(rune('a'+i)) + "-backup"
			obj := map[string]any{
				"apiVersion": "barmancloud.cnpg.io/v1", "kind": "ObjectStore",
				"metadata": map[string]any{"name": name, "namespace": ns},
				"spec":     map[string]any{"configuration": f.Configuration},
			}
			if err := applyStrict(t, objectStoreGVR, ns, name, mustJSON(t, obj)); err != nil {
				t.Fatalf("the plugin's CRD refused the ObjectStore: %v", err)
			}
			got, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var back map[string]any
			if err := json.Unmarshal(mustJSON(t, got.Spec.Configuration), &back); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, f.Configuration) {
				t.Errorf("read back through the typed subset as\n  %v\nwant\n  %v", back, f.Configuration)
			}
		})
	}
}

// A store that changes form (S3 keys, then an Azure SAS token) loses the
// old form's fields with setpoint's next apply: setpoint applies only the
// chosen form, and server-side apply removes the fields its field manager
// owned and no longer sets. Otherwise the ObjectStore would carry two
// forms, of which barman-cloud reads S3's first.
func TestObjectStoreFormChangeRemovesTheOldForm(t *testing.T) {
	ns := newNamespace(t)
	apply := func(cfg map[string]any) {
		t.Helper()
		obj := map[string]any{"apiVersion": "barmancloud.cnpg.io/v1", "kind": "ObjectStore",
			"metadata": map[string]any{"name": "shop-backup", "namespace": ns}, "spec": map[string]any{"configuration": cfg}}
		if err := applyStrict(t, objectStoreGVR, ns, "shop-backup", mustJSON(t, obj)); err != nil {
			t.Fatal(err)
		}
	}
	sel := func(name, key string) map[string]any { return map[string]any{"name": name, "key": key} }
	apply(map[string]any{"destinationPath": "s3://b/pg/" + ns, "endpointCA": sel("ca", "ca.crt"),
		"s3Credentials": map[string]any{"accessKeyId": sel("creds", "ACCESS_KEY_ID"), "secretAccessKey": sel("creds", "ACCESS_SECRET_KEY")}})
	apply(map[string]any{"destinationPath": "https://account.blob.core.windows.net/b/pg/" + ns,
		"azureCredentials": map[string]any{"storageAccount": sel("az", "ACCOUNT"), "storageSasToken": sel("az", "SAS")}})
	got, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "shop-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c := got.Spec.Configuration
	if c.S3Credentials != nil || c.EndpointCA != nil || c.AzureCredentials == nil || c.AzureCredentials.StorageSasToken == nil {
		t.Errorf("after the change: s3Credentials %+v, endpointCA %+v, azureCredentials %+v; want only Azure's", c.S3Credentials, c.EndpointCA, c.AzureCredentials)
	}
}

// The credential rules of backup.objectStore, in a PostgresCluster and
// in a PostgresClusterClass: one form, and each form whole.
func TestObjectStoreCredentialRules(t *testing.T) {
	ns := newNamespace(t)
	ref := func(name, key string) *pgv1.SecretKeyRef { return &pgv1.SecretKeyRef{Name: name, Key: key} }
	store := func(mutate func(*pgv1.ObjectStoreSpec)) *pgv1.ObjectStoreSpec {
		s := &pgv1.ObjectStoreSpec{DestinationPath: "s3://backups/pg"}
		mutate(s)
		return s
	}
	const (
		oneForm   = "spec.backup.objectStore: Invalid value: backup.objectStore takes one credential form: credentialsSecretName (S3 access keys), s3Credentials (an IAM role), azureCredentials or googleCredentials"
		needsOne  = "spec.backup.objectStore: Invalid value: backup.objectStore.destinationPath needs one credential form: credentialsSecretName (S3 access keys), s3Credentials (an IAM role), azureCredentials or googleCredentials"
		azureOne  = "spec.backup.objectStore.azureCredentials: Invalid value: azureCredentials takes exactly one of storageKey, storageSasToken and inheritFromAzureAD: true"
		azureAcc  = "spec.backup.objectStore.azureCredentials.storageAccount: Invalid value: azureCredentials.storageAccount goes with storageKey or storageSasToken, and only with them: with inheritFromAzureAD the account is the destinationPath's host"
		googleOne = "spec.backup.objectStore.googleCredentials: Invalid value: googleCredentials takes exactly one of applicationCredentials and gkeEnvironment: true"
	)
	refused := []struct {
		name  string
		store *pgv1.ObjectStoreSpec
		want  []string
	}{
		{"keys and an IAM role", store(func(s *pgv1.ObjectStoreSpec) {
			s.CredentialsSecretName = "creds"
			s.S3Credentials = &pgv1.S3CredentialsSpec{InheritFromIAMRole: true}
		}), []string{oneForm}},
		{"S3 keys and Azure", store(func(s *pgv1.ObjectStoreSpec) {
			s.CredentialsSecretName = "creds"
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{InheritFromAzureAD: true}
		}), []string{oneForm}},
		{"Azure and Google", store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{InheritFromAzureAD: true}
			s.GoogleCredentials = &pgv1.GoogleCredentialsSpec{GKEEnvironment: true}
		}), []string{oneForm}},
		{"no credentials", store(func(*pgv1.ObjectStoreSpec) {}), []string{needsOne}},
		{"an IAM role set false", store(func(s *pgv1.ObjectStoreSpec) {
			s.S3Credentials = &pgv1.S3CredentialsSpec{}
		}), []string{"spec.backup.objectStore.s3Credentials.inheritFromIAMRole: Invalid value: s3Credentials.inheritFromIAMRole must be true: S3 access keys go in backup.objectStore.credentialsSecretName"}},
		{"Azure key and SAS token", store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{StorageAccount: ref("az", "ACCOUNT"),
				StorageKey: ref("az", "KEY"), StorageSasToken: ref("az", "SAS")}
		}), []string{azureOne}},
		{"Azure with nothing to sign with", store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{}
		}), []string{azureOne}},
		{"Azure key without its account", store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{StorageKey: ref("az", "KEY")}
		}), []string{azureAcc}},
		{"Azure identity with an account", store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{InheritFromAzureAD: true, StorageAccount: ref("az", "ACCOUNT")}
		}), []string{azureAcc}},
		{"Google with neither", store(func(s *pgv1.ObjectStoreSpec) {
			s.GoogleCredentials = &pgv1.GoogleCredentialsSpec{}
		}), []string{googleOne}},
		{"Google key and GKE identity", store(func(s *pgv1.ObjectStoreSpec) {
			s.GoogleCredentials = &pgv1.GoogleCredentialsSpec{GKEEnvironment: true, ApplicationCredentials: ref("gcs", "key.json")}
		}), []string{googleOne}},
		{"an endpoint CA for Google Cloud Storage", store(func(s *pgv1.ObjectStoreSpec) {
			s.GoogleCredentials = &pgv1.GoogleCredentialsSpec{GKEEnvironment: true}
			s.EndpointCA = ref("ca", "ca.crt")
		}), []string{"spec.backup.objectStore.endpointCA: Invalid value: backup.objectStore.endpointCA is the CA of an S3- or Azure-compatible endpoint: barman-cloud does not use it for Google Cloud Storage"}},
		{"ServiceAccount annotations with access keys", store(func(s *pgv1.ObjectStoreSpec) {
			s.CredentialsSecretName = "creds"
			s.ServiceAccountAnnotations = map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/pg"}
		}), []string{"spec.backup.objectStore.serviceAccountAnnotations: Invalid value: backup.objectStore.serviceAccountAnnotations bind a cloud identity: they go with s3Credentials.inheritFromIAMRole, azureCredentials.inheritFromAzureAD or googleCredentials.gkeEnvironment"}},
	}
	for _, tc := range refused {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster(ns)
			c.Spec.Backup = &pgv1.BackupSpec{ObjectStore: tc.store}
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			for _, w := range tc.want {
				expectRefused(t, err, w)
			}
			class := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "refused-" + ns},
				Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{ObjectStore: tc.store}}}}
			_, err = pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), class, metav1.CreateOptions{})
			for _, w := range tc.want {
				expectRefused(t, err, w)
			}
		})
	}

	// Each form alone is taken, and an empty objectStore (a cluster
	// turning its class's store off) needs none.
	accepted := map[string]*pgv1.ObjectStoreSpec{
		"keys": store(func(s *pgv1.ObjectStoreSpec) {
			s.CredentialsSecretName = "creds"
			s.EndpointURL, s.EndpointCA = "https://minio.storage:9000", ref("minio-ca", "ca.crt")
		}),
		"role": store(func(s *pgv1.ObjectStoreSpec) {
			s.S3Credentials = &pgv1.S3CredentialsSpec{InheritFromIAMRole: true}
			s.ServiceAccountAnnotations = map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/pg"}
		}),
		"azkey": store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{StorageAccount: ref("az", "ACCOUNT"), StorageKey: ref("az", "KEY")}
		}),
		"azsas": store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{StorageAccount: ref("az", "ACCOUNT"), StorageSasToken: ref("az", "SAS")}
			s.EndpointCA = ref("azurite-ca", "ca.crt")
		}),
		"azid": store(func(s *pgv1.ObjectStoreSpec) {
			s.AzureCredentials = &pgv1.AzureCredentialsSpec{InheritFromAzureAD: true}
			s.ServiceAccountAnnotations = map[string]string{"azure.workload.identity/client-id": "00000000-0000-0000-0000-000000000000"}
		}),
		"gkey": store(func(s *pgv1.ObjectStoreSpec) {
			s.GoogleCredentials = &pgv1.GoogleCredentialsSpec{ApplicationCredentials: ref("gcs", "key.json")}
		}),
		"gke": store(func(s *pgv1.ObjectStoreSpec) {
			s.GoogleCredentials = &pgv1.GoogleCredentialsSpec{GKEEnvironment: true}
			s.ServiceAccountAnnotations = map[string]string{"iam.gke.io/gcp-service-account": "pg@project.iam.gserviceaccount.com"}
		}),
		"off": {},
	}
	for name, s := range accepted {
		c := validCluster(ns)
		c.Name = "shop-" + name
		c.Spec.Backup = &pgv1.BackupSpec{ObjectStore: s}
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
	}
}
