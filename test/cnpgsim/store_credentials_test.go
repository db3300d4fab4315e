package cnpgsim

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
)

// What the stand-in's store says to each credential form: the plugin's
// error for a Secret that lacks a key it reads, in the order it reads
// them; nothing for S3 it can read (access keys or an IAM role); and, for
// Azure and Google Cloud Storage, once their Secrets are whole, that it
// does not reach them, instead of archiving as if it had.
func TestStoreRefusalOfEachForm(t *testing.T) {
	t.Parallel()
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for name, keys := range map[string][]string{"s3": {"ACCESS_KEY_ID", "ACCESS_SECRET_KEY"}, "az": {"ACCOUNT", "KEY"}, "gcs": {"other.json"}} {
		data := map[string][]byte{}
		for _, k := range keys {
			data[k] = []byte("x")
		}
		if err := idx.Add(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Data: data}); err != nil {
			t.Fatal(err)
		}
	}
	s := &Simulator{secrets: corelisters.NewSecretLister(idx)}
	sel := func(name, key string) *barmanv1.SecretKeySelector {
		return &barmanv1.SecretKeySelector{Name: name, Key: key}
	}
	for _, tc := range []struct {
		name string
		cfg  barmanv1.BarmanObjectStoreConfiguration
		want string
	}{
		{"S3 keys", barmanv1.BarmanObjectStoreConfiguration{S3Credentials: &barmanv1.S3Credentials{
			AccessKeyID: sel("s3", "ACCESS_KEY_ID"), SecretAccessKey: sel("s3", "ACCESS_SECRET_KEY")}}, ""},
		{"S3 IAM role", barmanv1.BarmanObjectStoreConfiguration{S3Credentials: &barmanv1.S3Credentials{InheritFromIAMRole: ptr.To(true)}}, ""},
		{"Azure key", barmanv1.BarmanObjectStoreConfiguration{AzureCredentials: &barmanv1.AzureCredentials{
			StorageAccount: sel("az", "ACCOUNT"), StorageKey: sel("az", "KEY")}}, notSimulated("Azure Blob Storage")},
		{"Azure SAS token missing", barmanv1.BarmanObjectStoreConfiguration{AzureCredentials: &barmanv1.AzureCredentials{
			StorageAccount: sel("az", "ACCOUNT"), StorageSasToken: sel("az", "SAS")}},
			"rpc error: code = Unknown desc = missing key SAS, inside secret az"},
		{"Azure identity", barmanv1.BarmanObjectStoreConfiguration{AzureCredentials: &barmanv1.AzureCredentials{
			InheritFromAzureAD: ptr.To(true)}}, notSimulated("Azure Blob Storage")},
		{"Google key missing", barmanv1.BarmanObjectStoreConfiguration{GoogleCredentials: &barmanv1.GoogleCredentials{
			ApplicationCredentials: sel("gcs", "key.json")}}, "rpc error: code = Unknown desc = missing key key.json, inside secret gcs"},
		{"GKE identity", barmanv1.BarmanObjectStoreConfiguration{GoogleCredentials: &barmanv1.GoogleCredentials{
			GKEEnvironment: ptr.To(true)}}, notSimulated("Google Cloud Storage")},
	} {
		if got := s.storeRefusal("ns", tc.cfg); got != tc.want {
			t.Errorf("%s: refusal %q, want %q", tc.name, got, tc.want)
		}
	}
}
