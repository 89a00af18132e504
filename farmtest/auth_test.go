package farmtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"log/slog"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"

	"schedfarm/broker"
	"schedfarm/results/report"
	"schedfarm/worker"
)

const (
	farmPassword  = "farm-s3cret-9f2c"
	otherPassword = "other-s3cret-41aa"
)

// TestAccountsIsolateFarms: with a NATS config of two accounts, a client
// without credentials is refused, a client of the other account sees none
// of the farm's messages or streams, and the farm's password appears in no
// log line, report or Parquet file.
func TestAccountsIsolateFarms(t *testing.T) {
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, []byte(`accounts {
  FARM: { jetstream: enabled, users: [ { user: farm, password: "`+farmPassword+`" } ] }
  OTHER: { jetstream: enabled, users: [ { user: other, password: "`+otherPassword+`" } ] }
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	f := NewWithServer(t, Settings(), broker.ServerConfig{ConfigFile: conf})
	var logs SyncBuffer
	f.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.Auth = func(cc *broker.ConnConfig) { cc.User, cc.Password = "farm", farmPassword }

	if _, err := broker.Connect(broker.ConnConfig{URL: f.Server.ClientURL()}); err == nil ||
		!strings.Contains(err.Error(), "credentials") {
		t.Fatalf("a client without credentials: err = %v, want a refusal that mentions credentials", err)
	}
	if _, err := broker.Connect(broker.ConnConfig{URL: f.Server.ClientURL(), User: "farm", Password: "wrong"}); err == nil {
		t.Fatal("a wrong password was accepted")
	}

	other, err := broker.Connect(broker.ConnConfig{URL: f.Server.ClientURL(), User: "other", Password: otherPassword})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	var seen atomic.Int64
	sub, err := other.Subscribe(">", func(*nats.Msg) { seen.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()

	c := f.StartCoordinator("coord")
	f.StartWorkers(1, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep("secure", 10, 2, 0, ""), false)
	WaitRun(t, c.Coordinator, rep.Run, eventWait)
	out := collect(t, f, c.Farm, rep.Run)
	if _, err := report.Write(out[0].Dir, f.Registry); err != nil {
		t.Fatal(err)
	}
	if err := other.Flush(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	if n := seen.Load(); n != 0 {
		t.Fatalf("the other account received %d of the farm's messages", n)
	}
	ojs, err := other.JetStream()
	if err != nil {
		t.Fatal(err)
	}
	for name := range ojs.StreamNames() {
		if strings.Contains(name, "SCHEDFARM") {
			t.Fatalf("the other account sees stream %s", name)
		}
	}
	// No credential anywhere the farm writes.
	if strings.Contains(logs.String(), farmPassword) {
		t.Fatal("the farm's password is in its logs")
	}
	err = filepath.Walk(out[0].Dir, func(path string, info os.FileInfo, err error) error {
		if err != nil || info.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(farmPassword)) {
			t.Errorf("the farm's password is in %s", path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("jobs %d done; other account saw %d messages; %d bytes of logs and %s checked for the password",
		rep.Total, seen.Load(), logs.Len(), out[0].Dir)
}

// TestTLSClientCertificates: a server that requires client certificates
// refuses a client without one and serves the farm to a client with one.
func TestTLSClientCertificates(t *testing.T) {
	dir := t.TempDir()
	ca, caKey := newCert(t, dir, "ca", nil, nil)
	newCert(t, dir, "server", ca, caKey)
	newCert(t, dir, "client", ca, caKey)
	f := NewWithServer(t, Settings(), broker.ServerConfig{
		CertFile: filepath.Join(dir, "server.pem"), KeyFile: filepath.Join(dir, "server-key.pem"), CAFile: filepath.Join(dir, "ca.pem"),
	})
	url := strings.Replace(f.Server.ClientURL(), "nats://", "tls://", 1)
	if _, err := broker.Connect(broker.ConnConfig{URL: url, CAFile: filepath.Join(dir, "ca.pem")}); err == nil {
		t.Fatal("a client without a certificate was accepted")
	}
	f.Auth = func(cc *broker.ConnConfig) {
		cc.URL = url
		cc.CAFile, cc.CertFile, cc.KeyFile = filepath.Join(dir, "ca.pem"), filepath.Join(dir, "client.pem"), filepath.Join(dir, "client-key.pem")
	}
	runThrough(t, f, "tls", 5)
}

// newCert writes <name>.pem and <name>-key.pem into dir: a CA when parent
// is nil, else a certificate for 127.0.0.1 signed by the parent.
func newCert(t *testing.T, dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey) (*x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(time.Now().UnixNano()),
		Subject:      pkix.Name{CommonName: "schedfarm-test-" + name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
		DNSNames:     []string{"localhost"},
	}
	signer, signerKey := tmpl, key
	if parent == nil {
		tmpl.IsCA, tmpl.BasicConstraintsValid = true, true
		tmpl.KeyUsage |= x509.KeyUsageCertSign
	} else {
		signer, signerKey = parent, parentKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	write := func(file, typ string, b []byte) {
		if err := os.WriteFile(filepath.Join(dir, file), pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: b}), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(name+".pem", "CERTIFICATE", der)
	write(name+"-key.pem", "EC PRIVATE KEY", kb)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return cert, key
}

// TestNKeyUser: a server that lists an NKey user serves the farm to a client
// holding the seed, and refuses one holding another seed.
func TestNKeyUser(t *testing.T) {
	dir := t.TempDir()
	user, err := nkeys.CreateUser()
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := user.PublicKey()
	seed, _ := user.Seed()
	stranger, _ := nkeys.CreateUser()
	strangerSeed, _ := stranger.Seed()
	seedFile, strangerFile := filepath.Join(dir, "farm.nk"), filepath.Join(dir, "stranger.nk")
	conf := filepath.Join(dir, "nats.conf")
	for file, data := range map[string]string{
		seedFile: string(seed), strangerFile: string(strangerSeed),
		conf: "authorization { users: [ { nkey: " + pub + " } ] }\n",
	} {
		if err := os.WriteFile(file, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f := NewWithServer(t, Settings(), broker.ServerConfig{ConfigFile: conf})
	if _, err := broker.Connect(broker.ConnConfig{URL: f.Server.ClientURL(), NKeyFile: strangerFile}); err == nil {
		t.Fatal("a stranger's NKey was accepted")
	}
	f.Auth = func(cc *broker.ConnConfig) { cc.NKeyFile = seedFile }
	runThrough(t, f, "nkey", 5)
}

// TestTokenAuth: a server with a token refuses a client without it or with
// another one, and serves the farm to a client with it.
func TestTokenAuth(t *testing.T) {
	const token = "tok-3e1f6b"
	f := NewWithServer(t, Settings(), broker.ServerConfig{Token: token})
	for _, tok := range []string{"", "wrong"} {
		if _, err := broker.Connect(broker.ConnConfig{URL: f.Server.ClientURL(), Token: tok}); err == nil {
			t.Fatalf("token %q accepted", tok)
		}
	}
	f.Auth = func(cc *broker.ConnConfig) { cc.Token = token }
	runThrough(t, f, "token", 5)
}

// TestCredsFile: an operator-mode server (operator, account and user JWTs)
// serves the farm to a client with the user's credentials file (JWT + NKey
// seed) and refuses one with a user of an unknown account.
func TestCredsFile(t *testing.T) {
	dir := t.TempDir()
	must := func(s string, err error) string {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	okp, _ := nkeys.CreateOperator()
	opub := must(okp.PublicKey())
	ojwt := must(jwt.NewOperatorClaims(opub).Encode(okp))
	account := func(jetstream bool) (nkeys.KeyPair, string, string) {
		kp, _ := nkeys.CreateAccount()
		pub := must(kp.PublicKey())
		ac := jwt.NewAccountClaims(pub)
		if jetstream {
			ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
		}
		return kp, pub, must(ac.Encode(okp))
	}
	akp, apub, ajwt := account(true)
	_, spub, sjwt := account(false) // the system account may not use JetStream
	creds := func(signer nkeys.KeyPair, file string) string {
		ukp, _ := nkeys.CreateUser()
		uc := jwt.NewUserClaims(must(ukp.PublicKey()))
		ujwt := must(uc.Encode(signer))
		seed, _ := ukp.Seed()
		b, err := jwt.FormatUserConfig(ujwt, seed)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	farmCreds := creds(akp, "farm.creds")
	strangerAccount, _ := nkeys.CreateAccount()
	strangerCreds := creds(strangerAccount, "stranger.creds")
	conf := filepath.Join(dir, "nats.conf")
	if err := os.WriteFile(conf, []byte("operator: "+ojwt+"\nsystem_account: "+spub+
		"\nresolver: MEMORY\nresolver_preload: {\n  "+apub+": "+ajwt+"\n  "+spub+": "+sjwt+"\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f := NewWithServer(t, Settings(), broker.ServerConfig{ConfigFile: conf})
	if _, err := broker.Connect(broker.ConnConfig{URL: f.Server.ClientURL(), CredsFile: strangerCreds}); err == nil {
		t.Fatal("a user of an unknown account was accepted")
	}
	f.Auth = func(cc *broker.ConnConfig) { cc.CredsFile = farmCreds }
	runThrough(t, f, "creds", 5)
}

// runThrough runs n bench jobs through the farm (one coordinator, one
// worker, with the farm's credentials) and fails unless all finish.
func runThrough(t *testing.T, f *Farm, name string, n int) {
	t.Helper()
	c := f.StartCoordinator("coord")
	f.StartWorkers(1, "w", worker.Config{})
	rep := submit(t, c.Coordinator, benchSweep(name, n, 1, 0, ""), false)
	if p := WaitRun(t, c.Coordinator, rep.Run, eventWait); p.Done != n {
		t.Fatalf("progress %+v", p)
	}
}
