"""The implementation version, in a module that imports nothing: telemetry, the MCP server and the
package itself read it without importing the facade (and so without an import cycle)."""

__version__ = "0.1.0"
