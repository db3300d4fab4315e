package cluster

import (
	"k8s.io/utils/ptr"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	barmanac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/barmancloud/v1"
)

// storeAccess is how an ObjectStore's barman-cloud reaches its store: one
// credential form, in the plugin's fields (s3Credentials, azureCredentials
// or googleCredentials: barman-cloud takes exactly one), and the
// endpoint's CA. The Secrets they name are read by the plugin, in the
// cluster's namespace; setpoint only names them.
type storeAccess struct {
	s3         *barmanv1.S3Credentials
	azure      *barmanv1.AzureCredentials
	google     *barmanv1.GoogleCredentials
	endpointCA *barmanv1.SecretKeySelector
}

// The keys of credentialsSecretName's Secret.
const (
	accessKeyIDKey     = "ACCESS_KEY_ID"
	secretAccessKeyKey = "ACCESS_SECRET_KEY"
)

// accessOf is the store access os asks for. The CRD admits one credential
// form; should an object stored before that rule hold several, the first
// in this order wins (credentialsSecretName, the older form, first).
func accessOf(os *pgv1.ObjectStoreSpec) storeAccess {
	a := storeAccess{endpointCA: selectorOf(os.EndpointCA)}
	switch {
	case os.CredentialsSecretName != "":
		a.s3 = &barmanv1.S3Credentials{
			AccessKeyID:     &barmanv1.SecretKeySelector{Name: os.CredentialsSecretName, Key: accessKeyIDKey},
			SecretAccessKey: &barmanv1.SecretKeySelector{Name: os.CredentialsSecretName, Key: secretAccessKeyKey},
		}
	case os.S3Credentials != nil:
		a.s3 = &barmanv1.S3Credentials{InheritFromIAMRole: ptr.To(true)}
	case os.AzureCredentials != nil:
		c := os.AzureCredentials
		a.azure = &barmanv1.AzureCredentials{StorageAccount: selectorOf(c.StorageAccount),
			StorageKey: selectorOf(c.StorageKey), StorageSasToken: selectorOf(c.StorageSasToken)}
		if c.InheritFromAzureAD {
			a.azure.InheritFromAzureAD = ptr.To(true)
		}
	case os.GoogleCredentials != nil:
		c := os.GoogleCredentials
		a.google = &barmanv1.GoogleCredentials{ApplicationCredentials: selectorOf(c.ApplicationCredentials)}
		if c.GKEEnvironment {
			a.google.GKEEnvironment = ptr.To(true)
		}
	}
	return a
}

// hasCredentials reports whether os names a credential form at all.
func hasCredentials(os *pgv1.ObjectStoreSpec) bool {
	a := accessOf(os)
	return a.s3 != nil || a.azure != nil || a.google != nil
}

func selectorOf(r *pgv1.SecretKeyRef) *barmanv1.SecretKeySelector {
	if r == nil {
		return nil
	}
	return &barmanv1.SecretKeySelector{Name: r.Name, Key: r.Key}
}

// applyTo sets the access on an ObjectStore's configuration: only the
// fields of the chosen form, so that applying it removes those of a form
// setpoint wrote before.
func (a storeAccess) applyTo(cfg *barmanac.BarmanObjectStoreConfigurationApplyConfiguration) {
	if a.endpointCA != nil {
		cfg.WithEndpointCA(selectorAC(a.endpointCA))
	}
	switch {
	case a.s3 != nil:
		s3 := barmanac.S3Credentials()
		if a.s3.AccessKeyID != nil {
			s3.WithAccessKeyID(selectorAC(a.s3.AccessKeyID)).WithSecretAccessKey(selectorAC(a.s3.SecretAccessKey))
		}
		if a.s3.InheritFromIAMRole != nil {
			s3.WithInheritFromIAMRole(*a.s3.InheritFromIAMRole)
		}
		cfg.WithS3Credentials(s3)
	case a.azure != nil:
		az := barmanac.AzureCredentials()
		if a.azure.StorageAccount != nil {
			az.WithStorageAccount(selectorAC(a.azure.StorageAccount))
		}
		if a.azure.StorageKey != nil {
			az.WithStorageKey(selectorAC(a.azure.StorageKey))
		}
		if a.azure.StorageSasToken != nil {
			az.WithStorageSasToken(selectorAC(a.azure.StorageSasToken))
		}
		if a.azure.InheritFromAzureAD != nil {
			az.WithInheritFromAzureAD(*a.azure.InheritFromAzureAD)
		}
		cfg.WithAzureCredentials(az)
	case a.google != nil:
		g := barmanac.GoogleCredentials()
		if a.google.ApplicationCredentials != nil {
			g.WithApplicationCredentials(selectorAC(a.google.ApplicationCredentials))
		}
		if a.google.GKEEnvironment != nil {
			g.WithGKEEnvironment(*a.google.GKEEnvironment)
		}
		cfg.WithGoogleCredentials(g)
	}
}

func selectorAC(s *barmanv1.SecretKeySelector) *barmanac.SecretKeySelectorApplyConfiguration {
	return barmanac.SecretKeySelector().WithName(s.Name).WithKey(s.Key)
}

// heldBy reports whether cur carries this access: the endpoint's CA as
// set, and every field of the chosen form as set. Fields another manager
// added beside ours (an S3 region) are not drift; a field of the form
// setpoint wrote before is, since the chosen form then lacks one of its
// own or has one unset (every form sets a field no other form of its
// provider does).
func (a storeAccess) heldBy(cur barmanv1.BarmanObjectStoreConfiguration) bool {
	if !sameSelector(cur.EndpointCA, a.endpointCA) {
		return false
	}
	switch {
	case a.s3 != nil:
		c := cur.S3Credentials
		return c != nil && sameSelector(c.AccessKeyID, a.s3.AccessKeyID) &&
			sameSelector(c.SecretAccessKey, a.s3.SecretAccessKey) &&
			ptr.Deref(c.InheritFromIAMRole, false) == ptr.Deref(a.s3.InheritFromIAMRole, false)
	case a.azure != nil:
		c := cur.AzureCredentials
		return c != nil && sameSelector(c.StorageAccount, a.azure.StorageAccount) &&
			sameSelector(c.StorageKey, a.azure.StorageKey) && sameSelector(c.StorageSasToken, a.azure.StorageSasToken) &&
			ptr.Deref(c.InheritFromAzureAD, false) == ptr.Deref(a.azure.InheritFromAzureAD, false)
	case a.google != nil:
		c := cur.GoogleCredentials
		return c != nil && sameSelector(c.ApplicationCredentials, a.google.ApplicationCredentials) &&
			ptr.Deref(c.GKEEnvironment, false) == ptr.Deref(a.google.GKEEnvironment, false)
	}
	return true
}

func sameSelector(a, b *barmanv1.SecretKeySelector) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}
