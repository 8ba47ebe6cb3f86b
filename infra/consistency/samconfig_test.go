package consistency_test

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestSAMConfig holds samconfig.toml to what `sam build` and `sam deploy` need here (there is no SAM
// CLI on development machines to try them): the build runs the Makefile in the checkout instead of
// copying it, .local/ and all, once per function; SAM's own cache, which would hash the whole checkout
// for each function, is off; the deploy may create the functions' roles and overrides only
// parameters template.yaml has.
func TestSAMConfig(t *testing.T) {
	_, root := loadTemplate(t)
	cfg := readSAMConfig(t, filepath.Join(root, "samconfig.toml"))

	build := cfg["default.build.parameters"]
	for key, want := range map[string]string{"build_in_source": "true", "cached": "false"} {
		if got := build[key]; got != want {
			t.Errorf("samconfig.toml [default.build.parameters] %s = %q, want %s", key, got, want)
		}
	}

	deploy := cfg["default.deploy.parameters"]
	if !strings.Contains(deploy["capabilities"], "CAPABILITY_IAM") {
		t.Errorf("samconfig.toml capabilities %q: the stack creates the functions' IAM roles, CAPABILITY_IAM "+
			"is needed", deploy["capabilities"])
	}
	raw, err := os.ReadFile(filepath.Join(root, "template.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var tpl struct {
		Parameters map[string]yaml.Node `yaml:"Parameters"`
	}
	if err := yaml.Unmarshal(raw, &tpl); err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile(`(?:^|\s)(\w+)=`).FindAllStringSubmatch(deploy["parameter_overrides"], -1) {
		if _, ok := tpl.Parameters[m[1]]; !ok {
			t.Errorf("samconfig.toml overrides parameter %s, which template.yaml does not declare", m[1])
		}
	}
}

// readSAMConfig reads the small part of TOML samconfig.toml uses: [dotted.tables] and key = value
// lines, string values unquoted. Anything else fails the test rather than being misread.
func readSAMConfig(t *testing.T, path string) map[string]map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]map[string]string{}
	table := ""
	keyValue := regexp.MustCompile(`^([A-Za-z0-9_]+)\s*=\s*(.+)$`)
	scanner := bufio.NewScanner(f)
	for n := 1; scanner.Scan(); n++ {
		line := strings.TrimSpace(scanner.Text())
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
		case strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]"):
			table = strings.Trim(line, "[]")
			out[table] = map[string]string{}
		case keyValue.MatchString(line):
			m := keyValue.FindStringSubmatch(line)
			value := m[2]
			if strings.HasPrefix(value, `"`) {
				if value, err = strconv.Unquote(value); err != nil {
					t.Fatalf("%s:%d: a string this test cannot read: %s", path, n, line)
				}
			}
			if out[table] == nil {
				out[table] = map[string]string{}
			}
			out[table][m[1]] = value
		default:
			t.Fatalf("%s:%d: not the simple TOML this test reads: %s", path, n, line)
		}
	}
	if err := scanner.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
