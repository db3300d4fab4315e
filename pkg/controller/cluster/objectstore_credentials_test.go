package cluster

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// storeForms are the credential forms a store can take. What the
// ObjectStore gets for each, in the plugin's fields, is in
// testdata/objectstore-forms.json, which test/contract applies to the
// plugin's real CRD.
var storeForms = []struct {
	name string
	spec pgv1.ObjectStoreSpec
}{
	{"S3 access keys", pgv1.ObjectStoreSpec{CredentialsSecretName: "creds"}},
	{"S3 access keys, private CA", pgv1.ObjectStoreSpec{CredentialsSecretName: "creds", EndpointURL: "https://minio:9000",
		EndpointCA: &pgv1.SecretKeyRef{Name: "minio-ca", Key: "ca.crt"}}},
	{"S3 IAM role", pgv1.ObjectStoreSpec{S3Credentials: &pgv1.S3CredentialsSpec{InheritFromIAMRole: true}}},
	{"Azure storage key", pgv1.ObjectStoreSpec{DestinationPath: azurePath, AzureCredentials: &pgv1.AzureCredentialsSpec{
		StorageAccount: &pgv1.SecretKeyRef{Name: "az", Key: "AZURE_STORAGE_ACCOUNT"}, StorageKey: &pgv1.SecretKeyRef{Name: "az", Key: "AZURE_STORAGE_KEY"}}}},
	{"Azure SAS token", pgv1.ObjectStoreSpec{DestinationPath: azurePath, AzureCredentials: &pgv1.AzureCredentialsSpec{
		StorageAccount: &pgv1.SecretKeyRef{Name: "az", Key: "AZURE_STORAGE_ACCOUNT"}, StorageSasToken: &pgv1.SecretKeyRef{Name: "az", Key: "AZURE_STORAGE_SAS_TOKEN"}}}},
	{"Azure identity", pgv1.ObjectStoreSpec{DestinationPath: azurePath, AzureCredentials: &pgv1.AzureCredentialsSpec{InheritFromAzureAD: true}}},
	{"Google service-account key", pgv1.ObjectStoreSpec{DestinationPath: "gs://b/pg", GoogleCredentials: &pgv1.GoogleCredentialsSpec{
		ApplicationCredentials: &pgv1.SecretKeyRef{Name: "gcs", Key: "key.json"}}}},
	{"GKE workload identity", pgv1.ObjectStoreSpec{DestinationPath: "gs://b/pg", GoogleCredentials: &pgv1.GoogleCredentialsSpec{GKEEnvironment: true}}},
}

const azurePath = "https://account.blob.core.windows.net/backups/pg"

// renderedForms reads testdata/objectstore-forms.json: each form's
// configuration by name.
func renderedForms(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	data, err := os.ReadFile("testdata/objectstore-forms.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Forms []struct {
			Name          string          `json:"name"`
			Configuration json.RawMessage `json:"configuration"`
		} `json:"forms"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	out := map[string]json.RawMessage{}
	for _, f := range doc.Forms {
		out[f.Name] = f.Configuration
	}
	if len(out) != len(storeForms) {
		t.Fatalf("testdata/objectstore-forms.json has %d forms, the test %d", len(out), len(storeForms))
	}
	return out
}

func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatal(err)
	}
	return reflect.DeepEqual(x, y)
}

// storeApplied is the ObjectStore as the API server would store our
// apply for p: what objectStoreMatches reads back.
func storeApplied(t *testing.T, p *pass) (*barmanv1.ObjectStore, string) {
	t.Helper()
	cfg, err := json.Marshal(desiredObjectStore(p).Spec.Configuration)
	if err != nil {
		t.Fatal(err)
	}
	s := ourStore("")
	if err := json.Unmarshal(cfg, &s.Spec.Configuration); err != nil {
		t.Fatal(err)
	}
	return s, string(cfg)
}

func storePass(spec pgv1.ObjectStoreSpec) *pass {
	p := testPass()
	if spec.DestinationPath == "" {
		spec.DestinationPath = "s3://b/pg"
	}
	p.want = &desired{ObjectStore: &spec}
	p.obs, p.deps = &observation{}, &deps{}
	return p
}

// Each form is written in the plugin's fields, and only its own: the
// ObjectStore matches the spec it came from, and no other form's spec.
func TestEachCredentialFormGoesToThePluginsFields(t *testing.T) {
	t.Parallel()
	want := renderedForms(t)
	for i, f := range storeForms {
		t.Run(f.name, func(t *testing.T) {
			p := storePass(f.spec)
			store, got := storeApplied(t, p)
			if !sameJSON(t, []byte(got), want[f.name]) {
				t.Fatalf("configuration\n  %s\nwant (testdata/objectstore-forms.json)\n  %s", got, want[f.name])
			}
			if !hasCredentials(p.want.ObjectStore) {
				t.Error("hasCredentials is false")
			}
			if !objectStoreMatches(store, p.want.ObjectStore, archiveRoot(p)) {
				t.Fatal("the applied ObjectStore does not match its spec")
			}
			// Another form's spec does not match it: setpoint applies
			// again, and the apply removes the fields of this form.
			for j, other := range storeForms {
				q := storePass(other.spec)
				if j != i && objectStoreMatches(store, q.want.ObjectStore, archiveRoot(q)) {
					t.Errorf("it also matches %q", other.name)
				}
			}
		})
	}
}

// A field another manager adds beside ours is not drift; a Secret or key
// changed by hand is.
func TestCredentialDrift(t *testing.T) {
	t.Parallel()
	p := storePass(pgv1.ObjectStoreSpec{CredentialsSecretName: "creds"})
	store, _ := storeApplied(t, p)
	store.Spec.Configuration.S3Credentials.Region = &barmanv1.SecretKeySelector{Name: "creds", Key: "REGION"}
	if !objectStoreMatches(store, p.want.ObjectStore, archiveRoot(p)) {
		t.Error("a region another manager added is drift")
	}
	store.Spec.Configuration.S3Credentials.AccessKeyID.Key = "OTHER"
	if objectStoreMatches(store, p.want.ObjectStore, archiveRoot(p)) {
		t.Error("an access key renamed by hand is not drift")
	}
	p = storePass(pgv1.ObjectStoreSpec{CredentialsSecretName: "creds", EndpointCA: &pgv1.SecretKeyRef{Name: "ca", Key: "ca.crt"}})
	store, _ = storeApplied(t, p)
	q := storePass(pgv1.ObjectStoreSpec{CredentialsSecretName: "creds"})
	if objectStoreMatches(store, q.want.ObjectStore, archiveRoot(q)) {
		t.Error("an endpointCA the spec dropped is not drift")
	}
}

// No credential form is the spec error the CRD now refuses at admission.
func TestAStoreWithoutCredentialsIsRefused(t *testing.T) {
	t.Parallel()
	err := validate(&desired{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b"}})
	if se, ok := err.(*specError); !ok || se.reason != pgv1.ReasonBackupCredentialsMissing {
		t.Fatalf("validate = %v, want %s", err, pgv1.ReasonBackupCredentialsMissing)
	}
}

// serviceAccountAnnotations go to the CNPG Cluster's serviceAccountTemplate,
// which CloudNativePG copies onto the ServiceAccount it makes.
func TestServiceAccountAnnotationsGoToTheTemplate(t *testing.T) {
	t.Parallel()
	store := &pgv1.ObjectStoreSpec{S3Credentials: &pgv1.S3CredentialsSpec{InheritFromIAMRole: true},
		ServiceAccountAnnotations: map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/pg"}}
	spec := cnpgac.ClusterSpec().WithInstances(1)
	withServiceAccount(spec, store)
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"instances":1,"serviceAccountTemplate":{"metadata":{"annotations":{"eks.amazonaws.com/role-arn":"arn:aws:iam::111122223333:role/pg"}}}}`; string(b) != want {
		t.Fatalf("spec %s\nwant %s", b, want)
	}
	s := applied(t, nil)
	if serviceAccountMatches(s, store) {
		t.Error("a Cluster without the template matches")
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	s.ServiceAccountTemplate.Metadata.Annotations["other"] = "x"
	if !serviceAccountMatches(s, store) {
		t.Error("another manager's annotation beside ours is drift")
	}
	if !serviceAccountMatches(s, &pgv1.ObjectStoreSpec{CredentialsSecretName: "creds"}) {
		t.Error("a store without annotations does not match")
	}
	spec = cnpgac.ClusterSpec().WithInstances(1)
	withServiceAccount(spec, &pgv1.ObjectStoreSpec{CredentialsSecretName: "creds"})
	if spec.ServiceAccountTemplate != nil {
		t.Error("a store without annotations sets the template")
	}
}
