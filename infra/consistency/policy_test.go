package consistency_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/google/uuid"
	"github.com/reportingplatform/api/infra/faultproxy"
	"github.com/reportingplatform/api/infra/routes"
	"github.com/reportingplatform/api/infra/testkit"
	"github.com/reportingplatform/api/infra/wiring"
	"github.com/reportingplatform/api/shared/config"
	"gopkg.in/yaml.v3"
)

// permission is one IAM action on one resource of template.yaml: "table" or "index/<name>".
type permission struct{ action, resource string }

// TestPoliciesAreLeastPrivilege runs every function through its operations (the rarer paths: refusals,
// a hash upgrade, an acceptance, a move, a re-parent that walks ancestors, a scheduled run's lost write
// read back; then the sample of every route of infra/routes that calls the store) with a DynamoDB
// client of its own, as in AWS, and holds template.yaml's policy of each function to exactly the
// actions and resources it used: a missing one would fail in AWS, an extra one is privilege to spare.
func TestPoliciesAreLeastPrivilege(t *testing.T) {
	db := testkit.NewDB(t)
	loadDemo(t, db)
	log := testkit.Log(t)
	cfg := config.Config{TokenTTL: time.Hour, InvitationTTL: time.Hour}
	handlers := map[string]http.Handler{}
	calls := map[string]*testkit.Calls{}
	for id := range wiring.Handlers(nil, log, cfg, time.Now) {
		store, c := db.View(t)
		handlers[id] = wiring.Handlers(store, log, cfg, time.Now)[id]
		calls[id] = c
	}
	gw := testkit.Gateway(t, handlers)
	staff := tokenOf(t, db, "admin@example.com")
	alan := tokenOf(t, db, "alan@example.com")
	demo := func(name string) string { return uuid.NewSHA1(uuid.MustParse(demoNamespace), []byte(name)).String() }

	// send sends req, fails unless it gets status, and unless it keeps it deletes, as staff, a comment
	// or invitation it created (a comment reply leaves its parent's count and the counters): it returns
	// its id.
	send := func(req testkit.Request, status int, keep bool) string {
		resp := testkit.Do(t, gw, req)
		if resp.Status != status {
			t.Fatalf("%s %s: %d %s, want %d", req.Method, req.Path, resp.Status, resp.Body, status)
		}
		var created struct{ ID string }
		if req.Method == "POST" && status == 201 &&
			(strings.Contains(req.Path, "/comments/") || strings.Contains(req.Path, "/organization-invitations/")) {
			if err := json.Unmarshal(resp.Body, &created); err != nil {
				t.Fatal(err)
			}
			if keep {
				return created.ID
			}
			del := testkit.Do(t, gw, testkit.Request{Method: "DELETE", Path: req.Path + created.ID + "/", Token: staff})
			if del.Status != 204 {
				t.Fatalf("DELETE %s: %d %s", created.ID, del.Status, del.Body)
			}
		}
		return created.ID
	}
	var sample func(r routes.Route, keep bool) string // sends r's sample, and returns the id it created

	// The rarer paths first, of the routes whose sample does not take them.
	for _, step := range []struct {
		method, path, token, body string
		status                    int
	}{
		{"POST", "/api/v1/auth/login", "", `{"username": "legacy@example.com", "password": "from-django"}`, 201},
		{"POST", "/api/v1/auth/login", "", `{"username": "admin@example.com", "password": "wrong"}`, 400},
		{"POST", "/api/v1/users/", staff,
			`{"email": "p@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`, 201},
		{"POST", "/api/v1/users/", staff,
			`{"email": "p@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`, 400},
		{"PATCH", "/api/v1/organization-invitations/" + demoInvitation + "/", staff, `{"first_name": "Alan M."}`, 200},
		// The invitee's list: the invitations to their address (GSI4), before they accept and join.
		{"GET", "/api/v1/organization-invitations/", alan, "", 200},
		{"PATCH", "/api/v1/organization-invitations/" + demoInvitation + "/", alan, `{"status": 1}`, 200},
		{"GET", "/api/v1/comments/?content_type=report&object_id=" + demoReport + "&tag=review&page=2&page_size=5",
			staff, "", 200},
		{"PATCH", "/api/v1/comments/" + demo("comment:3") + "/", staff, `{"text": "edited"}`, 200},
		{"PUT", "/api/v1/comments/" + demo("comment:3") + "/", staff,
			`{"content_type": "report", "object_id": "` + unknownID + `"}`, 200},
		{"PATCH", "/api/v1/comments/" + demo("comment:7") + "/", staff, `{"parent": "` + demo("comment:11") + `"}`, 200},
		{"POST", "/api/v1/comments/", staff,
			`{"content_type": "report", "object_id": "` + demoReport +
				`", "text": "new", "tag": "review", "parent": "` + demoComment + `"}`, 201},
		{"GET", "/api/v1/organization-invitations/?status=0", tokenOf(t, db, "grace@example.com"), "", 200},
		{"POST", "/api/v1/organization-invitations/", tokenOf(t, db, "grace@example.com"),
			`{"organization_id": "` + demo("org:acme") + `", "email": "new-hire@example.com"}`, 201},
		// A member's address: refused by the transaction's ConditionCheck; with another error too, read.
		{"POST", "/api/v1/organization-invitations/", tokenOf(t, db, "grace@example.com"),
			`{"organization_id": "` + demo("org:acme") + `", "email": "edsger@example.com"}`, 400},
		{"POST", "/api/v1/organization-invitations/", tokenOf(t, db, "grace@example.com"),
			`{"organization_id": "` + demo("org:acme") +
				`", "email": "edsger@example.com", "accessible_portfolio_ids": ["` + unknownID + `"]}`, 400},
		{"POST", "/api/v1/auth/logout", tokenOf(t, db, "grace@example.com"), "", 204},
	} {
		send(testkit.Request{Method: step.method, Path: step.path, Token: step.token, Body: step.body}, step.status, false)
	}
	// Then the sample of every route of infra/routes that calls the store, on the demo data.
	n := 0
	world := routes.World{
		Value: func(name string) (string, bool) {
			switch name {
			case "n":
				n++
				return fmt.Sprint(n), true
			case "new comment", "new invitation":
				r, _ := routes.Lookup("POST " + map[string]string{"new comment": "/api/v1/comments/",
					"new invitation": "/api/v1/organization-invitations/"}[name])
				return sample(r, true), true
			}
			return routes.DemoValue(name)
		},
		Token:    func(caller string) string { return tokenOf(t, db, routes.DemoUsers[caller]) },
		NewToken: func(caller string) string { return tokenOf(t, db, routes.DemoUsers[caller]) },
	}
	sample = func(r routes.Route, keep bool) string {
		req, err := r.In(world)
		if err != nil {
			t.Fatal(err)
		}
		return send(req, r.Sample.Status, keep)
	}
	for _, r := range routes.All {
		if !r.NoStore {
			sample(r, false)
		}
	}

	// Creates with an Idempotency-Key (SPEC §9): one that lands, its replay (which reads what it
	// created), and one refused after its claim, which releases the key. The creates above wrote the
	// same items without a key.
	user := `{"email": "q@example.com", "password": "Vq8#mLp2zR", "confirm_password": "Vq8#mLp2zR"}`
	for _, step := range []struct {
		key, body string
		status    int
	}{{"policy-1", user, 201}, {"policy-1", user, 201}, {"policy-2", user, 400}} {
		resp := testkit.Do(t, gw, testkit.Request{Method: "POST", Path: "/api/v1/users/", Token: staff, Body: step.body,
			Header: map[string]string{"Idempotency-Key": step.key}})
		if resp.Status != step.status {
			t.Fatalf("POST /api/v1/users/ with key %s: %d %s, want %d", step.key, resp.Status, resp.Body, step.status)
		}
	}

	// ExpiriesFunction's run (SPEC §11) records the demo's invitation past its expiry, its write's
	// answer lost, so that it reads the write back as it must when that happens in AWS.
	store, c, proxy := db.ViewBehindProxy(t)
	proxy.Set(faultproxy.Fault{Mode: faultproxy.LostAnswer, Ops: []string{"TransactWriteItems"}, Times: 1})
	run := wiring.Scheduled(store, log, time.Now)["ExpiriesFunction"]
	if res, err := run.Handle(t.Context(), wiring.ScheduledEvent("ExpiriesFunction", time.Now())); err != nil ||
		res.Recorded != 1 {
		t.Fatalf("ExpiriesFunction's run: %+v, %v; want the demo's expired invitation recorded", res, err)
	}
	calls["ExpiriesFunction"] = c

	// MailFunction's handler (SPEC §9) sends the demo's unsent invitation from its stream record (the
	// sample event), its record's answer lost, so that it reads the write back as it must in AWS.
	store, c, proxy = db.ViewBehindProxy(t)
	proxy.Set(faultproxy.Fault{Mode: faultproxy.LostAnswer, Ops: []string{"UpdateItem"}, Times: 1})
	streamed, err := wiring.Streamed(store, log, config.Config{OutboxDir: t.TempDir(),
		InvitationURL: config.DefaultInvitationURL}, nil, time.Now)
	if err != nil {
		t.Fatal(err)
	}
	var ev events.DynamoDBEvent
	if err := json.Unmarshal(eventFile(t, "MailFunction-stream.json"), &ev); err != nil {
		t.Fatal(err)
	}
	if resp, err := streamed["MailFunction"].Handle(t.Context(), ev); err != nil || len(resp.BatchItemFailures) != 0 {
		t.Fatalf("MailFunction: %+v, %v; want the demo's unsent invitation sent", resp, err)
	}
	calls["MailFunction"] = c

	policies := templatePolicies(t)
	for id := range policies {
		if calls[id] == nil {
			t.Errorf("%s is not run here, so its policy is not checked", id)
		}
	}
	byMapping := mappingPermissions(t)
	for id, c := range calls {
		used := map[permission]bool{}
		for _, p := range byMapping[id] {
			used[p] = true
		}
		for _, in := range c.Inputs() {
			for _, p := range required(in) {
				used[p] = true
			}
		}
		for p := range used {
			if !policies[id][p] {
				t.Errorf("%s uses %s on %s, which template.yaml does not allow", id, p.action, p.resource)
			}
		}
		for p := range policies[id] {
			if !used[p] {
				t.Errorf("template.yaml allows %s %s on %s, which it never uses", id, p.action, p.resource)
			}
		}
	}
}

// mappingPermissions are what Lambda's event source mappings of template.yaml do under the role of the
// function they invoke, by function: read the table's stream, and send what the function gave up on to
// the on-failure destination.
func mappingPermissions(t *testing.T) map[string][]permission {
	t.Helper()
	var tpl struct {
		Resources map[string]struct {
			Type       string `yaml:"Type"`
			Properties struct {
				FunctionName      yaml.Node `yaml:"FunctionName"`
				EventSourceArn    yaml.Node `yaml:"EventSourceArn"`
				DestinationConfig struct {
					OnFailure struct {
						Destination yaml.Node `yaml:"Destination"`
					} `yaml:"OnFailure"`
				} `yaml:"DestinationConfig"`
			} `yaml:"Properties"`
		} `yaml:"Resources"`
	}
	decodeTemplate(t, &tpl)
	out := map[string][]permission{}
	for id, res := range tpl.Resources {
		if res.Type != "AWS::Lambda::EventSourceMapping" {
			continue
		}
		p := res.Properties
		if p.FunctionName.Tag != "!Ref" || p.EventSourceArn.Tag != "!GetAtt" || p.EventSourceArn.Value != "Table.StreamArn" {
			t.Fatalf("%s: an event source mapping of a function (!Ref) on the table's stream is expected", id)
		}
		fn := p.FunctionName.Value
		for _, a := range []string{"DescribeStream", "GetRecords", "GetShardIterator", "ListStreams"} {
			out[fn] = append(out[fn], permission{"dynamodb:" + a, "stream"})
		}
		if d := p.DestinationConfig.OnFailure.Destination; d.Tag == "!GetAtt" && strings.HasSuffix(d.Value, ".Arn") {
			out[fn] = append(out[fn], permission{"sqs:SendMessage", "resource " + strings.TrimSuffix(d.Value, ".Arn")})
		}
	}
	return out
}

// required lists the permissions one DynamoDB call needs: its own action, and for a transaction the
// action of each item in it only. There is no dynamodb:TransactWriteItems IAM action: AWS authorizes
// a transaction item by item, by PutItem, UpdateItem, DeleteItem and ConditionCheckItem ("Using IAM
// with DynamoDB transactions" in the DynamoDB developer guide); cfn-lint refuses the name (W3037).
func required(input any) []permission {
	table := func(a string) permission { return permission{"dynamodb:" + a, "table"} }
	switch in := input.(type) {
	case *dynamodb.GetItemInput:
		return []permission{table("GetItem")}
	case *dynamodb.BatchGetItemInput:
		return []permission{table("BatchGetItem")}
	case *dynamodb.PutItemInput:
		return []permission{table("PutItem")}
	case *dynamodb.UpdateItemInput:
		return []permission{table("UpdateItem")}
	case *dynamodb.DeleteItemInput:
		return []permission{table("DeleteItem")}
	case *dynamodb.QueryInput:
		if in.IndexName != nil {
			return []permission{{"dynamodb:Query", "index/" + aws.ToString(in.IndexName)}}
		}
		return []permission{table("Query")}
	case *dynamodb.TransactWriteItemsInput:
		var out []permission
		for _, item := range in.TransactItems {
			switch {
			case item.Put != nil:
				out = append(out, table("PutItem"))
			case item.Update != nil:
				out = append(out, table("UpdateItem"))
			case item.Delete != nil:
				out = append(out, table("DeleteItem"))
			case item.ConditionCheck != nil:
				out = append(out, table("ConditionCheckItem"))
			default:
				// An item of a kind this list does not know: fail until it is added here.
				out = append(out, permission{"unlisted transaction item", "table"})
			}
		}
		return out
	}
	// An operation this list does not know yet: named by its input type, so the test fails until it is
	// added here and to the policy.
	return []permission{{fmt.Sprintf("unlisted %T", input), "table"}}
}

// templatePolicies reads each function's inline policy statements: actions by resource, where
// `!GetAtt Table.Arn` is "table" and `!Sub "${Table.Arn}/index/X"` is "index/X".
func templatePolicies(t *testing.T) map[string]map[permission]bool {
	t.Helper()
	tpl, _ := loadTemplate(t)
	out := map[string]map[permission]bool{}
	for id, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		out[id] = map[permission]bool{}
		for _, pol := range functionPolicies(t, id, res.Properties) {
			for _, st := range pol.Statement {
				if st.Effect != "Allow" {
					t.Fatalf("%s: only Allow statements are expected", id)
				}
				if len(st.Action) == 1 && st.Action[0] == "ses:SendEmail" {
					continue // the invitation e-mail's: TestSESPolicy
				}
				for _, r := range resources(t, id, st.Resource) {
					for _, a := range st.Action {
						out[id][permission{a, r}] = true
					}
				}
			}
		}
	}
	return out
}

// policy is one inline policy of a function.
type policy struct {
	Statement []struct {
		Effect    string    `yaml:"Effect"`
		Action    []string  `yaml:"Action"`
		Resource  yaml.Node `yaml:"Resource"`
		Condition yaml.Node `yaml:"Condition"`
	} `yaml:"Statement"`
}

// functionPolicies are a function's inline policies; one under `!If [condition, policy, !Ref
// AWS::NoValue]` is taken as its policy, as the deployment whose condition holds has it.
func functionPolicies(t *testing.T, id string, props yaml.Node) []policy {
	t.Helper()
	var raw struct {
		Policies []yaml.Node `yaml:"Policies"`
	}
	if err := props.Decode(&raw); err != nil {
		t.Fatalf("%s policies: %v", id, err)
	}
	var out []policy
	for _, n := range raw.Policies {
		if n.Tag == "!If" {
			if len(n.Content) != 3 || n.Content[2].Tag != "!Ref" || n.Content[2].Value != "AWS::NoValue" {
				t.Fatalf("%s: a conditional policy is !If [condition, policy, !Ref AWS::NoValue]", id)
			}
			n = *n.Content[1]
		}
		var p policy
		if err := n.Decode(&p); err != nil {
			t.Fatalf("%s policy: %v", id, err)
		}
		out = append(out, p)
	}
	return out
}

// TestSESPolicy: only the invitations function may send e-mail, only SendEmail, only from SenderEmail
// (whichever SES identity verified it), and only when SenderEmail is set.
func TestSESPolicy(t *testing.T) {
	tpl, _ := loadTemplate(t)
	for id, res := range tpl.Resources {
		if res.Type != "AWS::Serverless::Function" {
			continue
		}
		var raw struct {
			Policies []yaml.Node `yaml:"Policies"`
		}
		if err := res.Properties.Decode(&raw); err != nil {
			t.Fatal(err)
		}
		ses := 0
		for _, n := range raw.Policies {
			got := canonical(&n)
			if !strings.Contains(got, "ses:") {
				continue
			}
			ses++
			var want yaml.Node
			if err := yaml.Unmarshal([]byte(`!If
- HasSender
- Version: "2012-10-17"
  Statement:
    - Effect: Allow
      Action: [ses:SendEmail]
      Resource: !Sub "arn:${AWS::Partition}:ses:${AWS::Region}:${AWS::AccountId}:identity/*"
      Condition:
        StringEquals:
          ses:FromAddress: !Ref SenderEmail
- !Ref AWS::NoValue`), &want); err != nil {
				t.Fatal(err)
			}
			if !senders[id] || got != canonical(want.Content[0]) {
				t.Errorf("%s has the SES policy %s\nwant, on %v only, %s", id, got, senders, canonical(want.Content[0]))
			}
		}
		if senders[id] && ses != 1 {
			t.Errorf("%s has %d SES policies, want 1", id, ses)
		}
	}
}

// canonical renders a YAML node with its CloudFormation tags and without its style, for comparisons.
func canonical(n *yaml.Node) string {
	tag := ""
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		tag = n.Tag + " "
	}
	var parts []string
	switch n.Kind {
	case yaml.ScalarNode:
		return tag + n.Value
	case yaml.SequenceNode:
		for _, c := range n.Content {
			parts = append(parts, canonical(c))
		}
		return tag + "[" + strings.Join(parts, ", ") + "]"
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			parts = append(parts, canonical(n.Content[i])+": "+canonical(n.Content[i+1]))
		}
		return tag + "{" + strings.Join(parts, ", ") + "}"
	}
	return tag
}

func resources(t *testing.T, id string, n yaml.Node) []string {
	t.Helper()
	if n.Kind == yaml.SequenceNode {
		var out []string
		for _, c := range n.Content {
			out = append(out, resources(t, id, *c)...)
		}
		return out
	}
	switch {
	case n.Tag == "!GetAtt" && n.Value == "Table.Arn":
		return []string{"table"}
	case n.Tag == "!Sub" && strings.HasPrefix(n.Value, "${Table.Arn}/index/"):
		return []string{"index/" + strings.TrimPrefix(n.Value, "${Table.Arn}/index/")}
	case n.Tag == "!Sub" && n.Value == "${Table.Arn}/stream/*":
		return []string{"stream"}
	case n.Tag == "!GetAtt" && strings.HasSuffix(n.Value, ".Arn"):
		return []string{"resource " + strings.TrimSuffix(n.Value, ".Arn")}
	}
	t.Fatalf("%s: a policy resource that is neither the table, its stream, one of its indexes nor a resource "+
		"of the template: %s %q", id, n.Tag, n.Value)
	return nil
}

// legacyHash is base64 of PBKDF2-HMAC-SHA256("from-django", "salt", 1000 iterations), as Django stores it.
const legacyHash = "e6hvDzLb7IMj/B/eWGcg2fpGamJB4zuErls4OVmX0Ec="

// demoNamespace is the namespace of demo.json's name-derived ids (infra/demo-data).
const demoNamespace = "5b0c8a36-0d2f-4c8e-9a51-3f4d2e1c0b9a"

// loadDemo loads demo.json, plus a user moved over from Django with a pbkdf2_sha256 hash (the hash of
// "from-django", salt "salt", 1000 iterations), whose login upgrades it.
func loadDemo(t *testing.T, db *testkit.DB) {
	t.Helper()
	db.LoadDemo(t, time.Now(), time.Hour)
	db.Load(t, json.RawMessage(`{"users": [{"email": "legacy@example.com",
		"password": "pbkdf2_sha256$1000$salt$`+legacyHash+`"}]}`), time.Now(), time.Hour)
}

func tokenOf(t *testing.T, db *testkit.DB, email string) string {
	t.Helper()
	u, err := db.UserByEmail(t, email)
	if err != nil {
		t.Fatal(err)
	}
	return db.Token(t, u, time.Hour)
}

// eventFile reads one file of the checkout's events/.
func eventFile(t *testing.T, name string) []byte {
	t.Helper()
	_, root := loadTemplate(t)
	raw, err := os.ReadFile(filepath.Join(root, "events", name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}
