// Unwritten starter parts behind a variant's kernels (todo.hpp).
#include "synclab/todo.hpp"

#include <cctype>
#include <map>
#include <set>
#include <sstream>

namespace synclab {

namespace {

struct Function {
    std::size_t first = 0, last = 0;  // its lines, definition to closing brace
};

bool ident(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// The name a definition line gives ("int f(..." -> "f"), or "" for any other line.
std::string defined_name(const std::string &line) {
    if (line.empty() || !ident(line[0]) || line.rfind("typedef", 0) == 0) return "";
    const std::size_t paren = line.find('(');
    if (paren == std::string::npos || line.find(';') < paren) return "";
    std::size_t end = paren;
    while (end > 0 && line[end - 1] == ' ') --end;
    std::size_t start = end;
    while (start > 0 && ident(line[start - 1])) --start;
    return line.substr(start, end - start);
}

// Every function of the file by name, and its lines.
std::map<std::string, Function> functions(const std::vector<std::string> &lines) {
    std::map<std::string, Function> out;
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const std::string name = defined_name(lines[i]);
        if (name.empty()) continue;
        std::size_t j = i;
        while (j < lines.size() && lines[j].rfind('}', 0) != 0) ++j;
        out[name] = {i, j};
        i = j;
    }
    return out;
}

bool calls(const std::vector<std::string> &lines, const Function &f, const std::string &name) {
    for (std::size_t i = f.first + 1; i <= f.last && i < lines.size(); ++i)
        for (std::size_t at = lines[i].find(name + "("); at != std::string::npos;
             at = lines[i].find(name + "(", at + 1))
            if (at == 0 || !ident(lines[i][at - 1])) return true;
    return false;
}

bool unwritten(const std::vector<std::string> &lines, const Function &f) {
    bool inside = false;
    for (std::size_t i = f.first; i <= f.last && i < lines.size(); ++i) {
        if (lines[i].find("---- end of your code ----") != std::string::npos) inside = false;
        else if (lines[i].find("---- your code ----") != std::string::npos) inside = true;
        else if (inside && lines[i].find("TODO") != std::string::npos) return true;
    }
    return false;
}

}  // namespace

std::string unwritten_part(const std::string &text, const std::vector<std::string> &kernels) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    const auto fns = functions(lines);
    std::vector<std::string> todo(kernels.begin(), kernels.end());
    std::set<std::string> seen(kernels.begin(), kernels.end());
    for (std::size_t k = 0; k < todo.size(); ++k) {  // breadth first: the kernel's own part first
        const auto f = fns.find(todo[k]);
        if (f == fns.end()) continue;
        if (unwritten(lines, f->second)) return todo[k];
        for (const auto &[name, g] : fns)
            if (!seen.count(name) && calls(lines, f->second, name)) {
                seen.insert(name);
                todo.push_back(name);
            }
    }
    return "";
}

}  // namespace synclab
