package commands

import (
	"bytes"
	"context"
	"net"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"k8s.io/cli-runtime/pkg/genericiooptions"

	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
)

// privileges reads as the database's owner role with its password,
// verifying the server by the Service's name against the cluster's CA,
// through the forward, and asks for the database's roles.
func TestPrivilegesReadsAsTheOwnerThroughTheForward(t *testing.T) {
	w := worlds()[0]
	c := w.clients()
	var got *pgx.ConnConfig
	var managed []string
	var out bytes.Buffer
	o := &Options{Streams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &out},
		Forwarder: noForward{}, connect: func() (*clients, error) { return c, nil },
		ReadCatalog: func(ctx context.Context, cfg *pgx.ConnConfig, m []string) (grantplan.Catalog, error) {
			got, managed = cfg, m
			return noCatalog(ctx, cfg, m)
		}}
	root := NewRoot(o)
	root.SetArgs([]string{"privileges", "shop-app"})
	if err := root.ExecuteContext(t.Context()); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("the catalog was not read")
	}
	if got.User != "order_items_admin" || got.Database != "order_items" || !strings.HasPrefix(got.Password, "admin-Pw@") {
		t.Errorf("session as %s to %s (password %v), want order_items_admin to order_items with its password", got.User, got.Database, got.Password != "")
	}
	if got.TLSConfig == nil || got.TLSConfig.ServerName != "shop-rw.default.svc" || got.TLSConfig.RootCAs == nil || got.TLSConfig.InsecureSkipVerify {
		t.Errorf("TLS %+v: want the Service's name verified against the cluster's CA", got.TLSConfig)
	}
	if strings.Join(managed, ",") != "order_items_admin,order_items_rw,order_items_ro" {
		t.Errorf("managed roles %v", managed)
	}
	// The dial goes to the forward's local end (noForward: port 5432).
	l, err := net.Listen("tcp", "127.0.0.1:5432")
	if err == nil {
		defer l.Close()
		conn, err := got.DialFunc(t.Context(), "tcp", "shop-rw.default.svc:5432")
		if err != nil {
			t.Errorf("dial through the forward: %v", err)
		} else {
			conn.Close()
		}
	}
	// Nothing is held: every declared privilege differs; the database
	// declares no schemas or roles, so a pass would not correct it.
	if !strings.Contains(out.String(), "0 of 2 role(s) hold what the spec declares") ||
		!strings.Contains(out.String(), "not corrected (would grant CONNECT,TEMPORARY)") {
		t.Errorf("output:\n%s", out.String())
	}
}
