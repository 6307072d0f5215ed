package report

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/invopop/jsonschema"
	jsonschemav6 "github.com/santhosh-tekuri/jsonschema/v6"
)

// SchemaID is the $id of the published JSON Schema of [Report].
const SchemaID = "https://github.com/mcp-fuzz/mcp-fuzz/docs/report.schema.json"

// Schema returns the JSON Schema of the JSON report, generated from the Go
// types. docs/report.schema.json is this output; a test keeps it current.
func Schema() ([]byte, error) {
	r := &jsonschema.Reflector{
		// Fields without omitempty are always present in the output.
		RequiredFromJSONSchemaTags: false,
		DoNotReference:             false,
	}
	s := r.Reflect(&Report{})
	s.ID = SchemaID
	s.Title = "mcp-fuzz report"
	s.Description = "The JSON report of one mcp-fuzz run (see docs/BEHAVIOUR.md#outputs-and-the-report)."
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ValidateJSON checks an encoded report against [Schema].
func ValidateJSON(data []byte) error {
	raw, err := Schema()
	if err != nil {
		return err
	}
	doc, err := jsonschemav6.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	c := jsonschemav6.NewCompiler()
	if err := c.AddResource(SchemaID, doc); err != nil {
		return err
	}
	sch, err := c.Compile(SchemaID)
	if err != nil {
		return fmt.Errorf("compiling the report schema: %w", err)
	}
	inst, err := jsonschemav6.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("report is not JSON: %w", err)
	}
	return sch.Validate(inst)
}
