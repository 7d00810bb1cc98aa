#include "broker/schema_registry/formats/protobuf_compatibility.h"

#include "broker/schema_registry/formats/protobuf_diff_context.h"

#include <map>

namespace skiff::schema_registry::protobuf {
namespace {

namespace gp = google::protobuf;

// The messages and enums declared in one scope (a file or a message), by name. Map entries and
// group types are not types an author declared (Confluent's parser never sees them), so they
// are left out; `index` is a message's position among the scope's messages, which a record's
// message indexes use.
struct ScopeTypes {
    struct Message {
        const gp::Descriptor* type;
        int index;
    };
    std::map<std::string, Message> messages;
    std::map<std::string, const gp::EnumDescriptor*> enums;
};

template <typename Scope>
ScopeTypes scope_types(const Scope& scope, int message_count, int enum_count,
                       const gp::Descriptor* (Scope::*message)(int) const,
                       const gp::EnumDescriptor* (Scope::*enumeration)(int) const) {
    ScopeTypes types;
    int index = 0;
    for (int i = 0; i < message_count; ++i) {
        const auto* type = (scope.*message)(i);
        if (type->options().map_entry() || is_group_type(*type))
            continue;
        types.messages[type->name()] = {type, index++};
    }
    for (int i = 0; i < enum_count; ++i)
        types.enums[(scope.*enumeration)(i)->name()] = (scope.*enumeration)(i);
    return types;
}

ScopeTypes types_of(const gp::FileDescriptor& file) {
    return scope_types(file, file.message_type_count(), file.enum_type_count(),
                       &gp::FileDescriptor::message_type, &gp::FileDescriptor::enum_type);
}

ScopeTypes types_of(const gp::Descriptor& message) {
    return scope_types(message, message.nested_type_count(), message.enum_type_count(),
                       &gp::Descriptor::nested_type, &gp::Descriptor::enum_type);
}

void compare_enums(DiffContext& context, const gp::EnumDescriptor& original,
                   const gp::EnumDescriptor& update) {
    // By number, the value on the wire; with allow_alias the first name of a number stands for it.
    auto by_number = [](const gp::EnumDescriptor& type) {
        std::map<int, const gp::EnumValueDescriptor*> values;
        for (int i = 0; i < type.value_count(); ++i)
            values.emplace(type.value(i)->number(), type.value(i));
        return values;
    };
    const auto original_values = by_number(original);
    const auto update_values = by_number(update);
    std::map<int, bool> numbers;
    for (const auto& [number, value] : original_values)
        numbers[number] = true;
    for (const auto& [number, value] : update_values)
        numbers[number] = true;
    for (const auto& [number, unused] : numbers) {
        DiffContext::PathScope scope(context, std::to_string(number));
        auto was = original_values.find(number);
        auto is = update_values.find(number);
        if (is == update_values.end())
            context.add(DifferenceType::ENUM_CONST_REMOVED, was->second->name());
        else if (was == original_values.end())
            context.add(DifferenceType::ENUM_CONST_ADDED, is->second->name());
        else if (was->second->name() != is->second->name())
            context.add(DifferenceType::ENUM_CONST_CHANGED,
                        was->second->name() + " -> " + is->second->name());
    }
}

void compare_scope_types(DiffContext& context, const ScopeTypes& original,
                         const ScopeTypes& update) {
    std::map<std::string, bool> names;
    for (const auto& [name, message] : original.messages)
        names[name] = true;
    for (const auto& [name, message] : update.messages)
        names[name] = true;
    for (const auto& [name, unused] : names) {
        DiffContext::PathScope scope(context, name);
        auto was = original.messages.find(name);
        auto is = update.messages.find(name);
        if (is == update.messages.end()) {
            context.add(DifferenceType::MESSAGE_REMOVED);
        } else if (was == original.messages.end()) {
            context.add(DifferenceType::MESSAGE_ADDED);
        } else {
            compare_messages(context, *was->second.type, *is->second.type);
            if (was->second.index != is->second.index)
                context.add(DifferenceType::MESSAGE_MOVED);
        }
    }

    std::map<std::string, bool> enum_names;
    for (const auto& [name, type] : original.enums)
        enum_names[name] = true;
    for (const auto& [name, type] : update.enums)
        enum_names[name] = true;
    for (const auto& [name, unused] : enum_names) {
        DiffContext::PathScope scope(context, name);
        auto was = original.enums.find(name);
        auto is = update.enums.find(name);
        if (is == update.enums.end())
            context.add(DifferenceType::ENUM_REMOVED);
        else if (was == original.enums.end())
            context.add(DifferenceType::ENUM_ADDED);
        else
            compare_enums(context, *was->second, *is->second);
    }
}

// Every field of a message by number, oneof members included, with the name of the (real) oneof
// each belongs to. proto3 `optional` fields sit in synthetic oneofs that the author never wrote:
// they count as top-level fields.
struct MessageFields {
    std::map<int, const gp::FieldDescriptor*> by_number;
    std::map<int, std::string> oneof_of;
    std::map<std::string, const gp::OneofDescriptor*> oneofs;
};

MessageFields fields_of(const gp::Descriptor& message) {
    MessageFields fields;
    for (int i = 0; i < message.field_count(); ++i) {
        const auto* field = message.field(i);
        fields.by_number[field->number()] = field;
        if (const auto* oneof = field->real_containing_oneof()) {
            fields.oneof_of[field->number()] = oneof->name();
            fields.oneofs[oneof->name()] = oneof;
        }
    }
    return fields;
}

// Mutual exclusivity a oneof of the reader's schema introduces: its members that already existed
// were exclusive only if they all came from one oneof of the writer's schema (each top-level field
// is a group of its own; new members are ignored, old data never set them).
void compare_oneof_groups(DiffContext& context, const MessageFields& original,
                          const MessageFields& update) {
    for (const auto& [name, oneof] : update.oneofs) {
        DiffContext::PathScope scope(context, name);
        std::set<std::string> origins;
        int top_level_moved_in = 0;
        for (int i = 0; i < oneof->field_count(); ++i) {
            const int number = oneof->field(i)->number();
            if (auto it = original.oneof_of.find(number); it != original.oneof_of.end()) {
                origins.insert("oneof " + it->second);
            } else if (original.by_number.count(number)) {
                origins.insert("field " + std::to_string(number));
                ++top_level_moved_in;
            }
        }
        if (origins.size() <= 1)
            continue;
        std::string detail = "from ";
        for (const auto& origin : origins)
            detail += (detail.size() > 5 ? ", " : "") + origin;
        context.add(top_level_moved_in > 1 ? DifferenceType::MULTIPLE_FIELDS_MOVED_TO_ONEOF
                                           : DifferenceType::FIELD_MOVED_TO_EXISTING_ONEOF,
                    detail);
    }
}

void compare_message_fields(DiffContext& context, const gp::Descriptor& original_message,
                            const gp::Descriptor& update_message) {
    const MessageFields original = fields_of(original_message);
    const MessageFields update = fields_of(update_message);

    compare_oneof_groups(context, original, update);

    std::map<std::string, bool> oneof_names;
    for (const auto& [name, oneof] : original.oneofs)
        oneof_names[name] = true;
    for (const auto& [name, oneof] : update.oneofs)
        oneof_names[name] = true;
    for (const auto& [name, unused] : oneof_names) {
        DiffContext::PathScope scope(context, name);
        if (!update.oneofs.count(name))
            context.add(DifferenceType::ONEOF_REMOVED);
        else if (!original.oneofs.count(name))
            context.add(DifferenceType::ONEOF_ADDED);
    }

    // A oneof removed with all its members is deleted as a whole, which Confluent accepts; a
    // member dropped while others survive elsewhere is a removal of that member.
    auto wholly_deleted = [&](const std::string& oneof_name) {
        if (update.oneofs.count(oneof_name))
            return false;
        const auto* oneof = original.oneofs.at(oneof_name);
        for (int i = 0; i < oneof->field_count(); ++i)
            if (update.by_number.count(oneof->field(i)->number()))
                return false;
        return true;
    };

    std::map<int, bool> numbers;
    for (const auto& [number, field] : original.by_number)
        numbers[number] = true;
    for (const auto& [number, field] : update.by_number)
        numbers[number] = true;
    for (const auto& [number, unused] : numbers) {
        const std::string tag = std::to_string(number);
        auto was = original.by_number.find(number);
        auto is = update.by_number.find(number);
        auto was_in = original.oneof_of.find(number);
        auto is_in = update.oneof_of.find(number);
        const bool was_in_oneof = was_in != original.oneof_of.end();
        const bool is_in_oneof = is_in != update.oneof_of.end();
        if (is == update.by_number.end()) {
            if (was_in_oneof) {
                if (!wholly_deleted(was_in->second)) {
                    DiffContext::PathScope oneof(context, was_in->second);
                    DiffContext::PathScope field(context, tag);
                    context.add(DifferenceType::ONEOF_FIELD_REMOVED, was->second->name());
                }
            } else {
                DiffContext::PathScope field(context, tag);
                context.add(was->second->is_required() ? DifferenceType::REQUIRED_FIELD_REMOVED
                                                       : DifferenceType::FIELD_REMOVED,
                            was->second->name());
            }
        } else if (was == original.by_number.end()) {
            if (is_in_oneof) {
                DiffContext::PathScope oneof(context, is_in->second);
                DiffContext::PathScope field(context, tag);
                context.add(DifferenceType::ONEOF_FIELD_ADDED, is->second->name());
            } else {
                DiffContext::PathScope field(context, tag);
                context.add(is->second->is_required() ? DifferenceType::REQUIRED_FIELD_ADDED
                                                      : DifferenceType::FIELD_ADDED,
                            is->second->name());
            }
        } else {
            // In both: leaving a oneof only relaxes exclusivity. The contents are compared
            // wherever the field now is, so a oneof's rename cannot hide a type change.
            if (was_in_oneof && !is_in_oneof) {
                DiffContext::PathScope field(context, tag);
                context.add(DifferenceType::ONEOF_FIELD_MOVED_TO_TOP_LEVEL, was_in->second);
            }
            if (is_in_oneof) {
                DiffContext::PathScope oneof(context, is_in->second);
                DiffContext::PathScope field(context, tag);
                compare_fields(context, *was->second, *is->second);
            } else {
                DiffContext::PathScope field(context, tag);
                compare_fields(context, *was->second, *is->second);
            }
        }
    }
}

}  // namespace

void compare_messages(DiffContext& context, const gp::Descriptor& original,
                      const gp::Descriptor& update) {
    // A message already being compared further up (a recursive type) is not compared again, but
    // its nested types still are, as in Confluent's MessageSchemaDiff.
    const bool entered = context.comparing.insert(&original).second;
    if (entered)
        compare_message_fields(context, original, update);
    compare_scope_types(context, types_of(original), types_of(update));
    if (entered)
        context.comparing.erase(&original);
}

std::vector<Difference> compare_schemas(const ProtobufSchema& previous,
                                        const ProtobufSchema& updated) {
    DiffContext context(previous, updated);
    const auto& original = previous.file();
    const auto& update = updated.file();
    if (original.package() != update.package())
        context.add(DifferenceType::PACKAGE_CHANGED,
                    "'" + original.package() + "' -> '" + update.package() + "'");
    compare_scope_types(context, types_of(original), types_of(update));
    return std::move(context.differences);
}

}  // namespace skiff::schema_registry::protobuf
