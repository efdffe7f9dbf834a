/// One class of text the validators meet, as messages of one size: ASCII JSON, accent-dense
/// Latin (French and German), CJK and emoji.
///
/// The text is made of words drawn at random (a fixed seed) from each class's vocabulary, not
/// one sentence repeated: a branch predictor learns a text that repeats every few hundred
/// bytes, and real traffic does not repeat. For the same reason a small size is a pool of
/// distinct messages (`messageCount`), validated in turn.
struct BenchmarkInput {
    let name: String
    let messages: [[UInt8]]

    /// The bytes of every message.
    var byteCount: Int { self.messages.reduce(0) { $0 + $1.count } }

    /// The share of bytes that are not ASCII.
    var nonASCIIShare: Double {
        Double(self.messages.reduce(0) { $0 + $1.count { $0 >= 0x80 } }) / Double(max(1, self.byteCount))
    }

    /// Messages of at most `size` bytes each, cut before a character that would not fit, as
    /// many as make about `poolBytes` (one at least).
    init(_ kind: Kind, size: Int, poolBytes: Int = 256 << 10, seed: UInt64 = 0x5EED) {
        var random = SplitMix64(seed: seed)
        let count = max(1, poolBytes / size)
        var messages: [[UInt8]] = []
        var pending: [UInt8] = []
        while messages.count < count {
            var message: [UInt8] = []
            message.reserveCapacity(size)
            while true {
                if pending.isEmpty { pending = Array(kind.nextWord(&random).utf8) }
                // Whole characters only: a word that does not fit is cut at a character start.
                var fit = min(pending.count, size - message.count)
                while fit < pending.count, fit > 0, pending[fit] & 0xC0 == 0x80 { fit -= 1 }
                message.append(contentsOf: pending[..<fit])
                pending.removeFirst(fit)
                if !pending.isEmpty { break }
            }
            messages.append(message)
        }
        self.name = kind.rawValue
        self.messages = messages
    }

    enum Kind: String, CaseIterable {
        case asciiJSON = "ASCII JSON"
        case latin = "Latin (fr/de)"
        case cjk = "CJK"
        case emoji = "emoji"

        /// The next piece of text, separator included.
        func nextWord(_ random: inout SplitMix64) -> String {
            switch self {
            case .asciiJSON:
                let user = Self.asciiWords[Int(random.next() % UInt64(Self.asciiWords.count))]
                let words = (0..<(2 + random.next() % 6)).map { _ in
                    Self.asciiWords[Int(random.next() % UInt64(Self.asciiWords.count))]
                }
                return #"{"type":2,"nsp":"/chat","id":\#(random.next() % 100_000),"data":["message",{"user":"\#(user)","#
                    + #""text":"\#(words.joined(separator: " "))","ts":\#(1_733_480_000_000 + random.next() % 1_000_000)}]},"#
            case .latin:
                let word = Self.latinWords[Int(random.next() % UInt64(Self.latinWords.count))]
                switch random.next() % 12 {
                case 0: return word + ", "
                case 1: return word + ". "
                default: return word + " "
                }
            case .cjk:
                let scalars = Array(Self.cjkCharacters.unicodeScalars)
                let length = 1 + Int(random.next() % 4)
                let word = String(
                    String.UnicodeScalarView((0..<length).map { _ in scalars[Int(random.next() % UInt64(scalars.count))] }))
                switch random.next() % 16 {
                case 0: return word + "、"
                case 1: return word + "。"
                case 2: return word + " "
                case 3: return word + "\(random.next() % 100)"
                default: return word
                }
            case .emoji:
                let emoji = Self.emojiSequences[Int(random.next() % UInt64(Self.emojiSequences.count))]
                return random.next() % 3 == 0 ? emoji + " " : emoji
            }
        }

        static let asciiWords = [
            "alice", "bob", "hello", "world", "the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "ok",
            "message", "room", "general", "status", "ready", "ping", "42", "true", "server", "client", "socket",
        ]

        /// French and German words, about a third with an accented letter or ß, as in prose.
        static let latinWords = [
            "été", "élève", "école", "à", "côté", "château", "déjà", "où", "ça", "très", "préférée", "fenêtre", "forêt",
            "hôpital", "garçon", "français", "Noël", "naïf", "cœur", "première", "après", "près", "théâtre", "bientôt",
            "là", "reçu", "général", "qualité", "société", "même", "être", "fête", "über", "größer", "Brücke", "Mädchen",
            "süß", "Äpfel", "schön", "Grüße", "Köln", "München", "für", "Bär", "Öl", "Straße", "weiß", "Tür", "Hände",
            "hören", "Schlüssel", "möchte", "können", "müssen", "würde", "Frühstück", "le", "la", "les", "de", "et", "un",
            "une", "pour", "dans", "avec", "sur", "nous", "vous", "il", "elle", "est", "sont", "pas", "que", "qui", "und",
            "die", "der", "das", "mit", "ist", "nicht", "ein", "zu", "auf", "auch", "sich", "es", "den", "von", "wir",
        ]

        static let cjkCharacters =
            "東京都天気晴曇最高温度中文本测试包括标点符号和常用汉字日本語電車駅時間今朝新聞会社学校先生友達食事"
            + "水火木金土山川田人口手目耳心愛夢花鳥風月春夏秋冬한국어텍스트포함됩니다안녕하세요감사합니다서울"
            + "ひらがなカタカナのはをにでとがもへやよりからまでです"

        static let emojiSequences = [
            "😀", "🎉", "👍🏽", "❤️", "🔥", "🚀", "✨", "🙏🏻", "👨‍👩‍👧‍👦", "🌍", "🎈", "🍕", "⚽️", "🎶", "😂", "🥳", "👀", "💯",
            "🇫🇷", "🇩🇪", "☕️", "🌸", "🐱", "🤖",
        ]
    }
}

/// A small deterministic random generator (SplitMix64): the same inputs on every run.
struct SplitMix64 {
    var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
