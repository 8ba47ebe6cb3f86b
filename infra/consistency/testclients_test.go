package consistency_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// clientBuilders are the calls that build a DynamoDB client, by the import path of their package.
// Tests take theirs from infra/testkit, whose Client stands a busy machine: the production client's
// attempt timeout, built by a test itself, turned a slow DynamoDB Local into a 503 that failed a test
// of something else.
var clientBuilders = map[string][]string{
	module + "/shared/dynamo":                       {"NewClient", "NewBulkClient", "NewLocalBulkClient"},
	"github.com/aws/aws-sdk-go-v2/service/dynamodb": {"New", "NewFromConfig"},
	"github.com/aws/aws-sdk-go-v2/config":           {"LoadDefaultConfig"},
}

// productionClients are testkit's clients with the production time limits, which a test takes only
// to prove those limits, behind a fault proxy whose faults make every wait that matters.
var productionClients = map[string][]string{module + "/infra/testkit": {"ProductionClient", "BehindProxy"}}

// mayUseTheProductionClient are the test files that prove the production time limits, and why they
// need them. Everything else uses testkit.Client (or a DB's, or ClientBehindProxy).
var mayUseTheProductionClient = map[string]string{
	"infra/faultproxy/faults_test.go": "SPEC §9: every store fault gets its 503 within the request budget, " +
		"with the attempts and attempt timeout as deployed",
	"shared/dynamo/writes_test.go": "a write whose answer comes after the attempt timeout is settled by " +
		"its token",
	"infra/fixture/bulk_test.go": "the API client's few attempts give up where the loader's do not",
}

// TestTestsBuildNoClientOfTheirOwn: no test file outside infra/testkit builds a DynamoDB client, and
// only those of mayUseTheProductionClient take the one with the production time limits.
func TestTestsBuildNoClientOfTheirOwn(t *testing.T) {
	t.Parallel()
	_, root := loadTemplate(t)
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if strings.HasPrefix(rel, "infra/testkit/") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		for _, c := range calls(f, clientBuilders) {
			t.Errorf("%s: %s builds a DynamoDB client of its own; take testkit.Client (or a testkit.DB's)",
				position(fset, rel, c), c.name)
		}
		if _, ok := mayUseTheProductionClient[rel]; !ok {
			for _, c := range calls(f, productionClients) {
				t.Errorf("%s: %s has the production time limits, which a busy machine breaks; take testkit.Client, "+
					"or name the file in mayUseTheProductionClient with the limit it proves", position(fset, rel, c), c.name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 50 {
		t.Fatalf("read %d test files under %s; the walk missed them", files, root)
	}
}

// TestTheClientCheckSeesEveryWayIn: what TestTestsBuildNoClientOfTheirOwn looks for is found under
// any import name, and a method of the same name on something else is not.
func TestTheClientCheckSeesEveryWayIn(t *testing.T) {
	t.Parallel()
	src := `package x_test
import (
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/reportingplatform/api/shared/dynamo"
	"github.com/reportingplatform/api/infra/testkit"
)
func f() {
	_, _ = dynamo.NewClient(nil, "")
	_ = ddb.New(ddb.Options{})
	_, _ = config.LoadDefaultConfig(nil)
	_, _ = testkit.BehindProxy(nil)
	var db *testkit.DB
	_, _, _ = db.ViewBehindProxy(nil)
	_ = dynamo.New(nil, "t")
}`
	f, err := parser.ParseFile(token.NewFileSet(), "x_test.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range calls(f, clientBuilders) {
		got = append(got, c.name)
	}
	for _, c := range calls(f, productionClients) {
		got = append(got, c.name)
	}
	want := []string{"dynamo.NewClient", "ddb.New", "config.LoadDefaultConfig", "testkit.BehindProxy"}
	if !slices.Equal(got, want) {
		t.Errorf("found %v, want %v", got, want)
	}
}

type found struct {
	name string
	pos  token.Pos
}

// calls lists the calls in f of the functions of funcs (by package import path), in source order.
func calls(f *ast.File, funcs map[string][]string) []found {
	names := map[string]string{} // import name in f → path, for the paths of funcs
	for _, spec := range f.Imports {
		path, err := strconv.Unquote(spec.Path.Value)
		if err != nil || funcs[path] == nil {
			continue
		}
		name := path[strings.LastIndexByte(path, '/')+1:]
		if spec.Name != nil {
			name = spec.Name.Name
		}
		names[name] = path
	}
	var out []found
	ast.Inspect(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		// An identifier that resolves to a declaration in the file is a variable, not the package.
		if !ok || pkg.Obj != nil {
			return true
		}
		if path, ok := names[pkg.Name]; ok && slices.Contains(funcs[path], sel.Sel.Name) {
			out = append(out, found{pkg.Name + "." + sel.Sel.Name, call.Pos()})
		}
		return true
	})
	return out
}

func position(fset *token.FileSet, rel string, c found) string {
	return fmt.Sprintf("%s:%d", rel, fset.Position(c.pos).Line)
}
