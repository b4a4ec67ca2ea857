//! The languages beyond English, German, French and Spanish: Italian, Dutch, Polish,
//! Portuguese, Russian, Chinese (simplified and traditional), Japanese and Korean, for
//! the families an injection cannot do without: overrides ("ignore previous
//! instructions"), concealment from the user, reading secrets and sending data out
//! (verbs, conversation objects, secret words), plus secrecy adverbs ("secretly").
//!
//! The tables here are added to those of [`super::phrases`] and [`super::objects`], and
//! [`anchors`] adds their prefilter anchors; `anchors_cover_every_pattern` checks them
//! together.
//!
//! # Spelling
//! Latin-script patterns are written folded (no accents: `nao`, `uzytkownik`), like the
//! other tables; `ł` has no decomposition and stays. Cyrillic, CJK and Hangul patterns
//! are written in natural spelling: [`super::fold::fold_pattern`] turns every non-ASCII
//! run into what folding makes of it (`й` → `и`, Hangul syllables → jamo, `プ` → `フ`)
//! and, for Russian words made only of letters with ASCII look-alikes (`его`, `об`),
//! accepts both the ASCII and the Cyrillic form (see [`super::fold`]). Anchors go through
//! [`super::fold::fold_anchor`] the same way.
//!
//! # Word order
//! Chinese and Japanese have no spaces between words, and Korean glues particles to
//! them (`사용자에게`), so their patterns and anchors use no word boundaries. Japanese and Korean put the object before the verb,
//! and Chinese often does (`把 … 发送到`), so their verbs pair with objects on either
//! side ([`is_cjk_verb`]); only imperative forms count for Japanese and Korean
//! (`送信してください`, `보내 주세요`), not the descriptive ones a tool description uses
//! (`送信します`), and a prohibition around the verb cancels it ([`cjk_negated`]).

/// Overrides of earlier instructions.
pub(crate) const OVERRIDE: &[&str] = &[
    // Italian.
    r"\b(?:ignora|ignorare|ignorate|ignori|trascura|trascurate|tralascia|tralasciate)\s+(?:(?:tutte|tutti|le|gli|i|tue|sue|vostre|queste|quelle|di|qualsiasi|ogni)\s+)*(?:istruzioni|indicazioni|regole|direttive|disposizioni|prompt|ordini|linee guida|consegne)\s+(?:precedenti|anteriori|iniziali|originali|di sistema|sopra|qui sopra|ricevute finora|finora)\b",
    r"\b(?:ignora|ignorare|ignorate|ignori|trascura|trascurate|tralascia|tralasciate)\s+(?:(?:tutte|tutti|le|gli|i|tue|sue|vostre)\s+)*(?:precedenti|vecchie|originali|iniziali)\s+(?:istruzioni|indicazioni|regole|direttive)\b",
    r"\b(?:dimentica|dimenticate|dimenticare)\s+(?:(?:tutte|tutti|le|gli|i|tue|sue|vostre|queste|di)\s+)*(?:istruzioni|indicazioni|regole|direttive)\b",
    r"\b(?:dimentica|dimenticate) tutto (?:quello che|cio che|quanto)\b",
    // Dutch.
    r"\b(?:negeer|negeren|vergeet|vergeten)\s+(?:(?:alle|al|de|je|jouw|uw|het)\s+)*(?:vorige|eerdere|voorgaande|bovenstaande|oorspronkelijke|originele|oude|systeem)\s+(?:instructies|instructie|opdrachten|regels|richtlijnen|aanwijzingen|prompts?|orders)\b",
    r"\b(?:negeer|negeren|vergeet|vergeten)\s+(?:(?:alle|al|de|je|jouw|uw|het)\s+)*(?:systeeminstructies|systeemprompt)\b",
    r"\bvergeet\s+(?:(?:alle|al|je|jouw|uw|de)\s+)+(?:instructies|regels|opdrachten|richtlijnen)\b",
    r"\bvergeet alles wat (?:je|u) (?:is )?(?:verteld|gezegd)\b",
    // Polish.
    r"\b(?:zignoruj|ignoruj|zignorujcie|ignorujcie|pomin|pomincie|pomijaj|zapomnij|zapomnijcie)\s+(?:(?:wszystkie|wszelkie|te|twoje|swoje|moje)\s+)*(?:poprzednie|wczesniejsze|powyzsze|dotychczasowe|pierwotne|oryginalne|systemowe|stare)\s+(?:instrukcje|polecenia|zasady|reguły|wytyczne|ustawienia)\b",
    r"\b(?:zapomnij|zapomnijcie) o (?:wszystkich )?(?:poprzednich |wczesniejszych |dotychczasowych )?(?:instrukcjach|poleceniach|zasadach)\b",
    r"\bnie zwracaj(?:cie)? uwagi na (?:wszystkie )?(?:poprzednie|wczesniejsze|powyzsze) (?:instrukcje|polecenia)\b",
    // Portuguese.
    r"\b(?:ignore|ignora|ignorar|ignorem|desconsidere|desconsidera|desconsiderar|desconsiderem)\s+(?:(?:todas|todos|as|os|suas|tuas|quaisquer)\s+)*(?:instrucoes|instrucao|orientacoes|regras|diretrizes|ordens)\s+(?:anteriores|previas|iniciais|originais|acima|do sistema)\b",
    r"\b(?:esqueca|esquece|esquecer|esquecam)\s+(?:(?:todas|todos|as|os|suas|tuas)\s+)*(?:instrucoes|orientacoes|regras|diretrizes)\b",
    r"\b(?:esqueca|esquece) tudo (?:o que|que)\b",
    // Russian.
    r"\b(?:игнорируй|игнорируйте|проигнорируй|проигнорируйте|игнорировать|отбрось|отбросьте|не обращай внимания на|не обращайте внимания на|не учитывай|не учитывайте)\s+(?:(?:все|свои|твои|ваши|эти|любые|ранее)\s+)*(?:предыдущие|прежние|предшествующие|исходные|изначальные|первоначальные|системные|вышеуказанные|вышеизложенные|старые)\s+(?:инструкции|указания|правила|команды|распоряжения|установки|промпты|промпт|директивы)\b",
    r"\b(?:забудь|забудьте)\s+(?:(?:все|свои|твои|ваши|эти|предыдущие|прежние)\s+)*(?:инструкции|указания|правила|команды|установки)\b",
    r"\b(?:забудь|забудьте) все,? что (?:тебе|вам) (?:говорили|сказали)\b",
    // Chinese.
    r"(?:忽略|忽视|忽視|无视|無視|不要理会|不要理會|不理会|不理會|跳过|跳過|忘记|忘記|忘掉|抛开|拋開|放弃|放棄|覆盖|覆蓋)[^\x{3002}\n]{0,10}?(?:之前|以前|先前|此前|上面|上述|以上|前面|早先|原来|原來|原有|原始|初始|系统|系統|开发者|開發者|你的)[^\x{3002}\n]{0,8}?(?:指令|指示|说明|說明|提示|规则|規則|命令|设定|設定|要求|约束|約束|限制|准则|準則)",
    r"(?:忘记|忘記|忘掉)[^\x{3002}\n]{0,6}?(?:所有|一切|全部)[^\x{3002}\n]{0,4}?(?:指令|指示|规则|規則|设定|設定)",
    // Japanese.
    r"(?:以前|前|これまで|今まで|先ほど|先程|上記|上|元|最初|システム|既存|あなた)の?[^\x{3002}\n]{0,8}?(?:指示|命令|指令|ルール|プロンプト|設定|制約|ガイドライン)[^\x{3002}\n]{0,10}?(?:無視|忘れ|破棄)",
    // Korean.
    r"(?:이전|앞선|앞의|위의|위|기존|원래|처음|시스템|너의|당신의)\s*(?:의\s*)?(?:모든\s*)?(?:지시|지침|명령|규칙|프롬프트|설정|안내)(?:사항|들)?\s*(?:을|를|은|는)?\s*(?:모두\s*|전부\s*|다\s*)?(?:무시|잊)",
];

/// Hiding something from the user.
pub(crate) const CONCEAL_STRONG: &[&str] = &[
    // Italian.
    r"\bnon\s+(?:(?:lo|la|gli|le|ne|nulla|niente|mai|ancora|glielo)\s+)*(?:dire|dirlo|dirle|dirgli|dirglielo|raccontare|raccontarlo|menzionare|menzionarlo|informare|avvisare|avvertire|rivelare|rivelarlo|mostrare|mostrarlo|segnalare|comunicare|spiegare|far sapere|fare sapere)\b(?:\s+\S+){0,4}?\s+(?:all'|all |a |agli |l'|l |gli |ad )?utent[ei]\b",
    r"\bsenza che (?:l'|l |gli )?utent[ei]\b",
    r"\bsenza (?:dirlo|dire nulla|dire niente|informare|avvisare|avvertire)\b(?:\s+\S+){0,2}?\s+(?:all'|all |a |agli |l'|l |gli )?utent[ei]\b",
    r"\b(?:l'|l )?utent[ei] non (?:deve|devono|dovrebbe|dovrebbero|puo|possono) (?:mai )?(?:saperlo|sapere|vedere|notare|accorgersene|scoprirlo|scoprire|essere informato)\b",
    r"\b(?:nascondi|nascondilo|nascondila|nascondete|tieni nascosto|tienilo nascosto|tieni segreto|tienilo segreto)\b(?:\s+\S+){0,3}?\s+(?:all'|all |agli |a |dall'|dall |da |agli )utent[ei]\b",
    // Dutch.
    r"\b(?:vertel|zeg|meld|vermeld|laat|informeer|toon|verklap|noem)\b(?:\s+\S+){0,4}?\s+(?:aan |tegen )?(?:de |je |uw )?gebruikers?\b(?:\s+\S+){0,4}?\s+(?:niet|niets|nooit)\b",
    r"\b(?:vertel|zeg|meld|vermeld|verklap|toon|laat)\s+(?:(?:het|dit|dat|er)\s+)?(?:niet|niets|nooit)\b(?:\s+\S+){0,4}?\s+(?:aan|tegen|met) (?:de |je |uw )?gebruikers?\b",
    r"\b(?:niet|niets|nooit)\b(?:\s+\S+){0,2}?\s+(?:aan|tegen) (?:de |je |uw )?gebruikers?\b(?:\s+\S+){0,2}?\s+(?:vertellen|zeggen|melden|vermelden|laten weten|tonen|verklappen|laten zien)\b",
    r"\bzonder dat (?:de |je |uw )?gebruikers?\b",
    r"\bzonder (?:de |je |uw )?gebruikers? te (?:informeren|vertellen|waarschuwen|melden|laten weten)\b",
    r"\b(?:houd|hou|verberg|verzwijg)\b(?:\s+\S+){0,3}?\s+voor (?:de |je |uw )?gebruikers?\b",
    // Polish.
    r"\bnie\s+(?:mow|mowcie|informuj|informujcie|wspominaj|wspominajcie|zdradzaj|zdradzajcie|ujawniaj|ujawniajcie|pokazuj|pokazujcie|powiadamiaj|powiadamiajcie|mowic|informowac|wspominac|zdradzac|ujawniac|pokazywac|powiadamiac)\b(?:\s+\S+){0,4}?\s+uzytkownik\w*",
    r"\bbez (?:wiedzy|informowania|powiadamiania|powiadomienia|zgody|mowienia) uzytkownik\w*",
    r"\b(?:aby|zeby|by) uzytkownik\w* (?:sie )?nie (?:dowiedzia|wiedzia|zauwazy|zorientowa|domysli)\w*",
    r"\b(?:ukryj|zataj|ukrywaj|zatajaj)\b(?:\s+\S+){0,3}?\s+przed uzytkownik\w*",
    r"\buzytkownik\w* nie (?:moze|powinien|musi) (?:sie )?(?:o tym )?(?:wiedziec|dowiedziec|zauwazyc|zobaczyc)\b",
    // Portuguese.
    r"\bnao\s+(?:(?:o|a|lhe|nada|isso|isto|nunca|jamais)\s+)*(?:diga|digam|conte|contem|informe|informem|mencione|mencionem|revele|revelem|avise|avisem|mostre|mostrem|fale|falem|comente|comentem|notifique|notifiquem|alerte|dizer|contar|informar|mencionar|revelar|avisar|mostrar|falar|comentar|notificar)\b(?:\s+\S+){0,4}?\s+(?:(?:ao|aos|para o|para os|o|os|a)\s+)?(?:usuarios?|utilizador(?:es)?)\b",
    r"\bsem que (?:o |os )?(?:usuarios?|utilizador(?:es)?) (?:o |a )?(?:saiba|saibam|perceba|percebam|note|notem|veja|vejam|descubra|descubram|fique sabendo)\b",
    r"\bsem (?:avisar|informar|contar|dizer|notificar|alertar)(?: nada)? (?:ao |aos |o |os )?(?:usuarios?|utilizador(?:es)?)\b",
    r"\b(?:o )?(?:usuario|utilizador) nao (?:deve|pode|precisa|deveria) (?:nunca )?(?:saber|ver|perceber|notar|descobrir|ficar sabendo)\b",
    r"\b(?:esconda|oculte|esconde|oculta|mantenha|guarde)\b(?:\s+\S+){0,3}?\s+(?:do|dos|ao|aos) (?:usuarios?|utilizador(?:es)?)\b",
    // Russian.
    r"\b(?:не|ничего не|никогда не)\s+(?:говори|скажи|сообщай|рассказывай|упоминай|показывай|уведомляй|информируй|раскрывай|предупреждай|говорить|сообщать|рассказывать|упоминать|показывать|раскрывать)(?:те)?\b(?:\s+\S+){0,4}?\s+пользовател\w*",
    r"\bпользовател\w*\s+(?:\S+\s+){0,3}?(?:ничего )?не\s+(?:говори|сообщай|рассказывай|упоминай|показывай|раскрывай)(?:те)?\b",
    r"\bбез (?:ведома|уведомления|информирования|согласия) пользовател\w*",
    r"\bчтобы пользовател\w* (?:ничего )?не (?:узнал|заметил|понял|увидел|знал|догадался|заподозрил)\w*",
    r"\b(?:скрой|скройте|скрывай|скрывайте|утаи|утаите|утаивай)\b(?:\s+\S+){0,3}?\s+от пользовател\w*",
    r"\bпользовател\w* (?:не должен|не должна|не должны|не нужно|не следует) (?:об этом )?(?:знать|узнать|видеть|увидеть|замечать|заметить)\b",
    // Chinese.
    r"(?:不要|别|別|不得|切勿|勿|请勿|請勿|不可以|不能|禁止)[^\x{3002}\n]{0,6}?(?:告诉|告訴|通知|提醒|透露|提及|提到|告知|说|說|让|讓|泄露|洩露|显示给|顯示給|展示给|展示給)[^\x{3002}\n]{0,4}?(?:用户|用戶|使用者)",
    r"(?:不要|别|別|不得|切勿|勿|请勿|請勿|不能|禁止)[^\x{3002}\n]{0,4}?(?:向|对|對|跟|和|给|給)(?:用户|用戶|使用者)(?:透露|提及|提到|说|說|告知|显示|顯示|展示|解释|解釋|泄露|洩露|报告|報告|说明|說明)",
    r"(?:对|對|向)(?:用户|用戶|使用者)(?:保密|隐瞒|隱瞞|隐藏|隱藏)",
    r"(?:用户|用戶|使用者)(?:不知情|不知道的情况下|不知道的情況下|察觉不到|察覺不到|不会注意到|不會注意到|不会发现|不會發現)",
    r"(?:瞒着|瞞著|背着|背著)(?:用户|用戶|使用者)",
    // Japanese.
    r"(?:ユーザー|ユーザ|利用者|使用者)(?:に|には|へ|へは|に対して|に対しては)[^\x{3002}\n]{0,12}?(?:言わ|伝え|知らせ|教え|見せ|話さ|報告し|通知し|明かさ|言及し|表示し)(?:ない|ず|ては)",
    r"(?:ユーザー|ユーザ|利用者|使用者)(?:に|には|から)(?:は)?(?:知られ|気づかれ|気付かれ|バレ|ばれ)(?:ない|ず)",
    r"(?:ユーザー|ユーザ|利用者|使用者)(?:に|には|から)(?:は)?(?:秘密|内緒|隠し|隠す|伏せ)",
];

/// Hiding something from the user, in Korean: kept apart from [`CONCEAL_STRONG`] (its own
/// automaton and lazy-DFA cache), because with the other languages in one alternation,
/// text dense with Korean recipients, verbs and punctuation outgrew the shared cache and
/// fell back to the slow engine (a review: 0.4 s per 256 KiB, 25-33 ms apart).
///
/// The recipient (`사용자에게`, plural `사용자들에게`, honorific `사용자님께`, `사용자분께`,
/// `사용자님들께`, `고객님께`, `user에게`; the suffixes are listed whole, as a `?` after Hangul
/// would apply to its last jamo once folded) may have up to four more syllables glued to
/// it (`에게도`, `에게조차`, `에게절대`; twelve characters, as folding decomposes Hangul
/// syllables into jamo), then a run of punctuation and up to twelve more
/// (`에게만큼은(절대로)`, commas as padding; ASCII and Latin-1 punctuation, the General
/// Punctuation to Miscellaneous Symbols blocks, CJK punctuation and emoji: a few ranges
/// rather than `[\p{P}\p{S}]`, which doubled the size of these patterns' automata);
/// further words between it and the verb are read only after a space. An unbounded
/// `\S+` right after the recipient read the whole of a spaceless run (`사용자에게숨기`
/// repeated) from every opener while a short match sat a few bytes on, and each search
/// ended there: quadratic, 8 s for 256 KiB.
///
/// The verb must end as a prohibition, an obligation or a purpose, not a plain
/// negation, a question or a description: `말하지 마세요/마십시오/마시고/마라/마`,
/// `말고/말 것/말기 바랍니다`, `않도록/않게/않고/않아야/않을 것`, `말하면 안 됩니다/돼/되요`,
/// `숨기세요/숨기기 바랍니다/숨길 것`, `숨겨 주세요/숨겨`, `비밀로 하세요/해 주세요/할 것`
/// (not `알리지 않은 변경`, `말하면 안 되는 이유`, `말씀드리지만`, `숨김 처리된`, `숨겨진`,
/// `비밀로 했던/해서`). Folded, `마` is also the start of `만` and `마지막` (`마` and more
/// jamo), `돼` of `됐`, `해` of `했` and `해서`: after those a bare ending must not be
/// followed by another jamo; any other character (a quote, `**`, `<`, `。`, an emoji)
/// may follow, as may the end.
///
/// Also: the `-서는/-서도 안 됩니다` prohibition on the verb's `-어` stem (`말해서는 안
/// 돼`, `알려서도 안 됩니다`); the user as the one who must not know (`사용자가 알면 안
/// 됩니다`); `절대` before `안`; verb `들키`, `전달하`/`공유하` as imperatives only
/// (`전달하지 마세요`: their negations `않고/않는다/않도록` describe what a product
/// does), and `말 하지` spaced (other spaced verbs cost too much automaton). Not: reported speech (`말하지 말라는 지시`, `말라고`, `숨기라는`,
/// `비밀로 하라는`, `안 된다고`), a wish (`숨기고 싶은`), a purpose (`숨기고자`), a
/// question (`숨겨요?`, `알면 안 돼?`), and a recipient right after `다른`, `타`, `외부`,
/// `권한이 없는`, `일반`, `게스트` and the like (other users: privacy and access-control
/// advice), or a purpose that `설정`/`구성` follows (settings documentation); both are
/// filtered in `signals::korean::concealment`, as the regex crate has no look-around.
///
/// More forms: `아무 말도 하지`, honorific `-시면 안` (`알리시면`, `아시면`), the verb `발설하`
/// as an imperative only (`지 마`, `-서는 안`), `알려지지`/`밝혀지지 않도록` ordered
/// done (`하세요`; not the display verbs' passives, `표시되지 않도록 하세요`, which is UI
/// advice), `공유하지 마` right after the user with `와`/`과`/`랑`/`하고` (elsewhere `와` is
/// mostly "and" or "related to": `사용자와 관련된 정보`), and the user who must not find out
/// (`고객이 모르게`, `몰라야 합니다`, `모르도록` with an order: not `모르도록 숨겨진`). The display verbs `표시하`, `출력하`, `안내하`, `드러내`,
/// `누설하` and `통보하` stay out: with an object they are UI and privacy advice
/// (`사용자에게 오류 스택 트레이스를 표시하지 마세요`, `중복 알림을 통보하지 마세요`).
pub(crate) const CONCEAL_STRONG_KO: &[&str] = &[
    r"(?:사용자|유저|이용자|고객|users?)(?:들|님|님들|분|분들)?(?:에게|한테|께|에겐|한텐)\S{0,12}?(?:[!-/:-@\[-`{-~\x{A1}-\x{BF}\x{2010}-\x{2BFF}\x{3001}-\x{303F}\x{1F000}-\x{1FAFF}]+\S{0,12}?)?(?:\s*|\s+(?:\S+\s+){0,3}?)(?:(?:말(?:도)?\s?하|(?:언급|공개|노출|설명|보고|얘기|이야기|말씀)하|알리|(?:알려|보여)(?:주|드리)|전하|밝히|들키|말씀드리)(?:지\s*(?:마(?:세요|십시오|시오|시고|시기|시길|셔|셈|쇼|세여|세용|요|라(?:$|[^\x{1100}-\x{11FF}])|$|[^\x{1100}-\x{11FF}])|말(?:고|아|\s*것|도록|라(?:$|[^\x{1100}-\x{11FF}])|기|길|자|거라|게)|않(?:도록|게|고|아야|으셔야|을\s*것|는다|기))|(?:시)?면\s*(?:(?:절대|절대로)\s*)?안\s*(?:됩니다|된다|됨|돼요|되요|되며|되고|돼)(?:$|[^?\x{1100}-\x{11FF}]))|(?:알려지|밝혀지)지\s*않(?:도록|게)\s*(?:하세요|하십시오|하시오|해\s*주세요|해\s*줘|해라|하라(?:$|[^\x{1100}-\x{11FF}])|할\s*것|해(?:$|[^\x{1100}-\x{11FF}]))|(?:전달|공유|발설)\s?하지\s*마(?:세요|십시오|시오|라)?(?:$|[^?\x{1100}-\x{11FF}])|(?:말\s?해|(?:언급|공개|노출|설명|보고|얘기|이야기|말씀)해|(?:알려|보여)(?:줘|드려)?|(?:발설|전달|공유)해|전해|밝혀|들켜|말씀드려)(?:서는|서도|선)\s*(?:(?:절대|절대로)\s*)?안\s*(?:됩니다|된다|됨|돼요|되요|되며|되고|돼)(?:$|[^?\x{1100}-\x{11FF}]))",
    r"(?:사용자|유저|이용자|고객)(?:들|님|님들|분|분들)?(?:가|이|는|은|께서|도)?\s*(?:모르도록\s*(?:하세요|하십시오|하시오|해\s*주세요|해\s*줘|해라|할\s*것|해(?:$|[^\x{1100}-\x{11FF}]))|모르게|눈치채지 못하게|눈치 채지 못하게|알지 못하게|알아채지 못하게|몰라야\s*(?:합니다|한다|해요|해|돼요|돼|됩니다)(?:$|[^?\x{1100}-\x{11FF}]))",
    r"(?:사용자|유저|이용자|고객|users?)(?:들|님|님들|분|분들)?(?:가|이|는|은|께서|도)?\s*(?:알면|아시면|알아서는|알게\s*되면|알아채면|눈치\s?채면|눈치\s?채서는)\s*안\s*(?:됩니다|된다|됨|돼요|되요|돼)(?:$|[^?\x{1100}-\x{11FF}])",
    r"(?:사용자|유저|이용자|고객|users?)(?:들|님|님들|분|분들)?(?:에게|한테|께|로부터|에게서|에겐|한텐)\S{0,12}?(?:[!-/:-@\[-`{-~\x{A1}-\x{BF}\x{2010}-\x{2BFF}\x{3001}-\x{303F}\x{1F000}-\x{1FAFF}]+\S{0,12}?)?(?:\s*|\s+(?:\S+\s+){0,2}?)(?:숨기(?:세요|십시오|시오|고(?:$|[^\s\x{1109}\x{110C}]|\x{110C}(?:$|[^\x{1161}])|\s+[^\s\x{1109}]|\s*\x{1109}[^\x{1175}]|\s*\x{1109}\x{1175}[^\x{11C1}])|라(?:$|[^\x{1100}-\x{11FF}])|도록|기|셔|자|렴|시길|셈)|숨길\s*것|숨겨(?:야|라|요(?:$|[^?\x{1100}-\x{11FF}])|\s*주|\s*줘|\s*두|\s*둬|\s*놓|$|[^\x{1100}-\x{11FF}])|비밀로\s*(?:하세요|하십시오|하시오|하고|하라(?:$|[^\x{1100}-\x{11FF}])|하도록|합시다|하셔|하기|할\s*것|두|유지|부탁|해(?:야|라|\s*주|줘|$|[^\x{1100}-\x{11FF}])))",
    r"(?:사용자|유저|이용자|고객|users?)(?:들|님|님들|분|분들)?(?:와|과|랑|하고)(?:는|도)?\s*(?:(?:절대|절대로)\s*)?공유\s?하지\s*마(?:세요|십시오|시오|라)?(?:$|[^?\x{1100}-\x{11FF}])",
];

/// Secrecy adverbs ("secretly").
pub(crate) const CONCEAL_WEAK: &[&str] = &[
    r"\b(?:segretamente|di nascosto|in segreto|silenziosamente|stiekem|in het geheim|ongemerkt|heimelijk|potajemnie|po cichu|w tajemnicy|niepostrzezenie|em segredo|silenciosamente)\b",
    r"\b(?:тайно|незаметно|втайне|скрытно)\b",
    r"(?:悄悄|偷偷|秘密地|暗中|こっそり|密かに|ひそかに|内緒で|몰래|은밀히|조용히)",
];

/// Imperative verbs that read or reveal data (SVO languages; CJK in [`CJK_READ_VERB`]).
pub(crate) const READ_VERB: &[&str] = &[
    r"\b(?:leggi|apri|mostra|visualizza|stampa|invia|manda|recupera|estrai|allega|includi|carica|condividi|esporta|inoltra|trasmetti)\b",
    r"\b(?:lees|toon|kopieer|stuur|verstuur|verzend|haal|geef|deel|exporteer|plak)\b",
    r"\b(?:przeczytaj|odczytaj|czytaj|otworz|pokaz|wyswietl|wypisz|skopiuj|kopiuj|wyslij|przeslij|pobierz|załącz|dołącz|wklej|udostepnij|wyeksportuj)\b",
    r"\b(?:leia|abra|mostre|exiba|imprima|mande|anexe|inclua|extraia|obtenha|carregue|compartilhe|exporte)\b",
    r"\b(?:прочитай|прочти|открой|покажи|выведи|распечатай|скопируй|отправь|пришли|перешли|загрузи|вставь|приложи|передай|выгрузи|извлеки|получи|достань|добавь|включи)(?:те)?\b",
];

/// Imperative verbs that move data somewhere (SVO languages).
pub(crate) const TRANSFER_VERB: &[&str] = &[
    r"\b(?:invia|manda|inoltra|trasmetti|carica|allega|includi|aggiungi|inserisci|incolla|scrivi|metti|condividi|esporta)\b",
    r"\b(?:stuur|verstuur|verzend|voeg|plak|kopieer|deel|zet|schrijf|exporteer)\b",
    r"\b(?:wyslij|przeslij|załącz|dołącz|dodaj|wklej|skopiuj|wpisz|umiesc|przekaz|udostepnij|wyeksportuj)\b",
    r"\b(?:envie|mande|encaminhe|anexe|inclua|adicione|insira|cole|carregue|compartilhe|coloque|escreva|transmita|exporte)\b",
    r"\b(?:отправь|пришли|перешли|передай|загрузи|вставь|приложи|добавь|скопируй|запиши|включи|выгрузи|опубликуй)(?:те)?\b",
];

/// Chinese, Japanese (imperative) and Korean (imperative) verbs that read or reveal data.
pub(crate) const CJK_READ_VERB: &[&str] = &[
    r"(?:读取|讀取|读|讀|打开|打開|显示|顯示|输出|輸出|打印|复制|複製|发送|發送|上传|上傳|提取|获取|獲取|附上|附加|转发|轉發|泄露|洩露|查看|导出|導出)",
    r"(?:読み取っ|読み込ん|読ん|開い|表示し|出力し|印刷し|コピーし|送信し|送っ|転送し|アップロードし|添付し|含め|取得し|貼り付け|共有し|エクスポートし)て(?:ください|下さい|くれ|ほしい|欲しい)",
    r"(?:表示|出力|印刷|コピー|送信|転送|アップロード|添付|取得|共有|エクスポート)(?:しろ|せよ|すること)",
    r"(?:読み取れ|読み取ること|読み込め|読み込むこと|読め|読むこと|開け|開くこと)",
    r"(?:읽어|열어|보여|보내|가져와)(?:라|줘|요|주세요| 주세요| 줘)?(?:\s|$|[.,!])",
    r"(?:읽으세요|읽으십시오|여세요|보여 주세요|보내 주세요)",
    r"(?:출력|복사|전송|업로드|첨부|포함|공유|추출)(?:해|해라|해줘|해 줘|해주세요|해 주세요|하세요|하십시오)(?:\s|$|[.,!])",
];

/// Chinese, Japanese and Korean verbs that move data somewhere.
pub(crate) const CJK_TRANSFER_VERB: &[&str] = &[
    r"(?:发送|發送|上传|上傳|附上|附加|转发|轉發|泄露|洩露|导出|導出|复制|複製|粘贴|貼上|提交|写入|寫入|放入|加入|包含|发给|發給|传给|傳給|发到|發到)",
    r"(?:送信し|送っ|転送し|アップロードし|添付し|含め|貼り付け|コピーし|書き込ん|入れ|共有し|エクスポートし)て(?:ください|下さい|くれ|ほしい|欲しい)",
    r"(?:送信|転送|アップロード|添付|コピー|書き込み|共有|エクスポート)(?:しろ|せよ|すること)",
    r"(?:보내|넣어|붙여넣어)(?:라|줘|요|주세요| 주세요| 줘)?(?:\s|$|[.,!])",
    r"(?:보내 주세요|넣어 주세요)",
    r"(?:전송|업로드|첨부|포함|복사|공유|붙여넣기)(?:해|해라|해줘|해 줘|해주세요|해 주세요|하세요|하십시오)(?:\s|$|[.,!])",
];

/// Specific secrets named in words ("private key").
pub(crate) const CRED_STRONG: &[&str] = &[
    r"\b(?:chiav[ei] privat[ae]|chiav[ei] ssh|prive ?sleutels?|ssh-sleutels?|klucz(?:e|a)? prywatn\w*|klucz(?:e|a)? ssh|chaves? privadas?|chaves? ssh)",
    r"\b(?:(?:закрыт|приватн|секретн)\w* ключ\w*|ssh-ключ\w*)",
    r"(?:私钥|私鑰|秘密鍵|秘密キー|개인\s?키|비밀\s?키)",
];

/// Generic secret words ("password").
pub(crate) const CRED_WEAK: &[&str] = &[
    r"\b(?:credenziali|chiav[ei] api|wachtwoord(?:en)?|api-sleutels?|inloggegevens|hasel|klucz(?:e|a)? api|dane logowania|senhas?|chaves? de api|chaves? da api|credenciais)\b",
    r"\b(?:hasł[oa]|парол(?:ь|и|я)|токен\w*|api-ключ\w*|учетн\w* данн\w*)\b",
    r"(?:密码|密碼|令牌|凭证|憑證|パスワード|トークン|認証情報|비밀번호|암호|토큰|api\s?키|자격\s?증명|인증\s?정보)",
];

/// The conversation itself.
pub(crate) const DATA_STRONG: &[&str] = &[
    r"\b(?:(?:l'|l |la |questa |tutta la |l'intera |l intera )?(?:intera )?conversazione|cronologia (?:della chat|della conversazione|dei messaggi)|(?:tutti i |i )?messaggi precedenti|tutti i messaggi|prompt di sistema|istruzioni di sistema)\b",
    r"\b(?:(?:het |dit |ons |je |uw )?(?:hele |volledige |gehele |complete |huidige )?(?:gesprek|conversatie|chatgesprek)|chatgeschiedenis|gespreksgeschiedenis|alle (?:vorige |eerdere )?berichten|(?:vorige|eerdere) berichten|systeemprompt)\b",
    r"\b(?:(?:cała |całą |całej )?(?:rozmowe|rozmowa|rozmowy)|histori[ae] (?:czatu|rozmowy|rozmow|wiadomosci)|wszystkie (?:poprzednie |wczesniejsze )?wiadomosci|(?:poprzednie|wczesniejsze) wiadomosci|prompt systemowy|prompt systemu)\b",
    r"\b(?:(?:a |esta |essa |toda a )?(?:conversa|conversacao)(?: (?:inteira|completa|toda))?|(?:o )?historico (?:do chat|da conversa|de conversas|das mensagens|de mensagens)|todas as mensagens(?: anteriores)?|mensagens anteriores|(?:o )?prompt do sistema)\b",
    r"\b(?:(?:всю |вся |всей |полную |целую )?истори(?:ю|я|и) (?:переписки|разговора|чата|диалога|сообщений)|(?:всю |всей )?переписк(?:у|а|и)|(?:весь |всего |этот |текущий )?(?:разговор|диалог)(?:а|е)?|(?:все (?:предыдущие |прошлые )?|предыдущие |прошлые )сообщени(?:я|й)|системн(?:ый|ого) промпт\w*)\b",
    r"(?:(?:完整的?|整个|整個|全部的?|所有的?)?(?:对话|對話|聊天|会话|會話)(?:历史|歷史|记录|記錄|内容|內容)|(?:完整|整个|整個|全部|所有)的?(?:对话|對話)|(?:之前|以前|所有)的?(?:消息|訊息|信息)|(?:系统|系統)提示)",
    r"(?:(?:これまでの|今までの|全ての|すべての|全体の)?(?:会話|チャット|対話)の?(?:履歴|ログ|内容|全体|記録)|(?:これまでの|今までの|過去の|以前の)(?:会話|メッセージ|やり取り)|システムプロンプト)",
    r"(?:(?:전체\s*|모든\s*|이전\s*)?(?:대화|채팅)\s*(?:기록|내역|내용|이력|로그)|(?:전체|모든|이전)\s*(?:대화|메시지)|시스템\s*프롬프트)",
];

/// Parameters named in other languages ("nel parametro 'notes'"), as sinks.
pub(crate) const PARAM_SINK: &[&str] = &[
    r#"\b(?:parametro|argomento|campo|parameter|veld|parametr|pole|argument)\s+['"`][a-z0-9_.-]+['"`]"#,
    r#"\b(?:параметр\w*|аргумент\w*|пол(?:е|я|ю))\s+['"`][a-z0-9_.-]+['"`]"#,
    r#"['"`][a-z0-9_.-]+['"`]\s*(?:参数|參數|字段|欄位|引数|パラメータ|フィールド|매개변수|파라미터|인자|필드)"#,
];

/// Prepositions that make an object not the verb's own ("add a note *to* the
/// conversation"), in the languages of this module.
pub(crate) const PREPOSITIONS: &[&str] = &[
    "al", "alla", "allo", "ai", "agli", "alle", "nel", "nella", "nei", "nelle", "sulla", "sul",
    "su", "con", "per", "da", "dalla", "dal", "tra", "fra", "aan", "naar", "op", "met", "bij",
    "uit", "tot", "voor", "do", "w", "we", "na", "dla", "przy", "po", "przez", "ao", "aos", "no",
    "nas", "nos", "em", "para", "pela", "pelo", "com", "в", "во", "на", "к", "ко", "по", "для",
    "с", "со", "при", "о", "об",
];

/// Negations that cancel a verb that follows them.
pub(crate) const NEGATIONS: &[&str] = &[
    "non",
    "mai",
    "niet",
    "nooit",
    "niets",
    "nao",
    "nunca",
    "не",
    "ни",
    "никогда",
];

/// Negations that cancel a verb they follow, up to the word after its object (Dutch
/// and German word order: "stuur het gesprek niet door").
pub(crate) const POST_NEGATIONS: &[&str] = &["niet", "nooit", "nicht", "niemals"];

/// Modal verbs that make a following verb a capability statement ("può leggere").
pub(crate) const CAPABILITY: &[&str] = &[
    "puo",
    "possono",
    "kan",
    "kunnen",
    "moze",
    "moga",
    "может",
    "могут",
    "pode",
    "podem",
];

/// Prohibitions before a Chinese verb, and what follows a Japanese or Korean verb to
/// negate or forbid it.
const CJK_BEFORE: &[&str] = &[
    "不要",
    "别",
    "勿",
    "不得",
    "禁止",
    "不能",
    "不可",
    "不准",
    "绝不",
    "絕不",
    "決して",
];
const CJK_AFTER: &[&str] = &[
    "ない",
    "ず",
    "ません",
    "ては",
    "지 마",
    "지마",
    "지 말",
    "지 않",
];

/// Whether `c` is a Han, kana or Hangul character (a script without spaces between
/// words, or with the object before the verb).
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(
        c,
        '\u{1100}'..='\u{11FF}'
            | '\u{3040}'..='\u{30FF}'
            | '\u{3130}'..='\u{318F}'
            | '\u{3400}'..='\u{4DBF}'
            | '\u{4E00}'..='\u{9FFF}'
            | '\u{A960}'..='\u{A97F}'
            | '\u{AC00}'..='\u{D7FF}'
            | '\u{F900}'..='\u{FAFF}'
    )
}

/// Whether a verb match is a CJK one (pairs with objects on either side).
pub(crate) fn is_cjk_verb(verb: &str) -> bool {
    verb.chars().next().is_some_and(is_cjk)
}

/// Whether the CJK verb at `start..end` of `sentence` is negated or forbidden: a
/// prohibition earlier in its clause, or a negation right after it.
pub(crate) fn cjk_negated(sentence: &str, start: usize, end: usize) -> bool {
    static FORMS: std::sync::LazyLock<(Vec<String>, Vec<String>)> =
        std::sync::LazyLock::new(|| {
            let fold = |w: &&str| super::fold::fold(w);
            (
                CJK_BEFORE.iter().map(fold).collect(),
                CJK_AFTER.iter().map(fold).collect(),
            )
        });
    let (before_forms, after_forms) = &*FORMS;
    // A dozen characters back, no further than the start of the clause: a bounded look
    // keeps long texts without sentence ends linear.
    let mut from = start.saturating_sub(36);
    while !sentence.is_char_boundary(from) {
        from += 1;
    }
    let mut before = &sentence[from..start];
    if let Some(i) = before.rfind(['\u{3002}', '\u{3001}', ',', ':']) {
        before = &before[i + before[i..].chars().next().map_or(1, char::len_utf8)..];
    }
    let after = &sentence[end..];
    before_forms.iter().any(|f| before.contains(f.as_str()))
        || after_forms.iter().any(|f| after.starts_with(f.as_str()))
}

#[path = "langs_anchors.rs"]
mod anchors_table;
pub(super) use anchors_table::anchors;
