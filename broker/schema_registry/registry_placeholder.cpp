// Placeholder so that the library has a source until the registry's own files land.
namespace skiff::schema_registry {
int registry_placeholder = 0;
}
