import Router
import Routing
import Rules
import Synchronization
import TestSupport
import Testing
import XDG

/// Every recipe of docs/rules.md, loaded verbatim, against its examples
/// (the daemon runs them again in `RulesEndToEndTests`).
struct CookbookTests {
    /// Records what rules ask to launch instead of launching.
    final class Launches: URLOpener {
        let log = Mutex<[Cookbook.Expected]>([])
        func application(for url: ValidatedURL) -> String? { nil }
        func open(_ url: ValidatedURL, activationToken: String?) async -> LaunchResult { .noApplication(reason: "") }
        func open(_ url: ValidatedURL, with target: Target, activationToken: String?) async -> LaunchResult {
            let id = target.description
            log.withLock { $0.append(.opens(url.text, with: id)) }
            return .opened(application: id)
        }
        func run(_ commandLine: String, with url: ValidatedURL, name: String, activationToken: String?) async -> LaunchResult {
            let program = (try? ExecLine(commandLine).program) ?? commandLine
            log.withLock { $0.append(.runs(url.text, with: program)) }
            return .opened(application: name)
        }
    }

    @Test func theCookbookHasTenRecipesWithExamples() throws {
        let cookbook = try Cookbook.load()
        #expect(cookbook.recipes.count >= 10)
        for recipe in cookbook.recipes { #expect(!recipe.examples.isEmpty, "\(recipe.title)") }
    }

    @Test func everyRecipeDoesWhatTheDocumentSays() async throws {
        for recipe in try Cookbook.load().recipes {
            let (rules, diagnostics) = RuleParser.parse(recipe.text, path: "rules.md")
            #expect(diagnostics.isEmpty, "\(recipe.title): \(diagnostics)")
            let set = RuleSet(rules)
            for example in recipe.examples {
                let launches = Launches()
                // The daemon's router, with rules only.
                let route = await Router<Never>(rules: set, opener: launches, deadline: .seconds(20))
                    .open(try ValidatedURL(example.url), caller: "", callerAppID: example.callerAppID, activationToken: nil)
                let got: Cookbook.Expected? = switch route.outcome {
                case .noApplication: .passesOn(route.finalURL.text)  // the fallback was reached with this URL
                case .discarded: .discarded
                case .handled: launches.log.withLock { $0.last }
                default: nil  // rules always decide, and this fallback opens nothing
                }
                #expect(got == example.expected, "\(recipe.title): \(example)")
            }
        }
    }
}
