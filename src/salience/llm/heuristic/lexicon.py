"""Word lists the heuristic engine uses. English-centred; see docs/llm.md for the limits."""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(w.strip().lower() for w in text.split() if w.strip())


def _phrases(text: str) -> frozenset[str]:
    return frozenset(p.strip().lower() for p in text.split(",") if p.strip())


STOPWORDS = _words(
    """
    a about above after again against all also am an and any are aren't as at be because been
    before being below between both but by can can't cannot could couldn't did didn't do does
    doesn't doing don't down during each either else ever few for from further get gets got
    had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's i i'd i'll i'm i've if in into is isn't it it's its itself just
    let's like me might more most much must mustn't my myself no nor not now of off on once only
    or other ought our ours ourselves out over own really same shan't she she'd she'll she's
    should shouldn't so some such than that that's the their theirs them themselves then there
    there's these they they'd they'll they're they've this those through to too under until up
    upon us very was wasn't we we'd we'll we're we've were weren't what what's when when's where
    where's which while who who's whom why why's will with won't would wouldn't yes yet you
    you'd you'll you're you've your yours yourself yourselves ok okay oh um uh yeah yep hey hi
    hello thanks thank please lol haha going gonna wanna want really actually still anymore
    already maybe just quite pretty bit lot lots thing things stuff something anything everything
    nothing someone anyone everyone one ones us via per etc im ive id dont doesnt didnt cant
    wont isnt arent wasnt werent u ur re fw fwd
    """
)

MONTHS = _words(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
WEEKDAYS = _words(
    "monday tuesday wednesday thursday friday saturday sunday mon tue tues wed thu thur thurs "
    "fri sat sun mondays tuesdays wednesdays thursdays fridays saturdays sundays"
)
WEEKDAY_INDEX = {
    "monday": 0,
    "tuesday": 1,
    "wednesday": 2,
    "thursday": 3,
    "friday": 4,
    "saturday": 5,
    "sunday": 6,
}

COUNTRIES = _phrases(
    """
    afghanistan, albania, algeria, argentina, armenia, australia, austria, azerbaijan, bahrain,
    bangladesh, belarus, belgium, bolivia, bosnia, brazil, bulgaria, cambodia, cameroon, canada,
    chile, china, colombia, costa rica, croatia, cuba, cyprus, czechia, czech republic, denmark,
    dominican republic, ecuador, egypt, england, estonia, ethiopia, finland, france, georgia,
    germany, ghana, greece, guatemala, honduras, hong kong, hungary, iceland, india, indonesia,
    iran, iraq, ireland, israel, italy, jamaica, japan, jordan, kazakhstan, kenya, korea,
    south korea, kosovo, kuwait, latvia, lebanon, lithuania, luxembourg, malaysia, malta, mexico,
    moldova, mongolia, montenegro, morocco, mozambique, myanmar, nepal, netherlands, holland,
    new zealand, nicaragua, nigeria, north macedonia, norway, oman, pakistan, panama, paraguay,
    peru, philippines, poland, portugal, qatar, romania, russia, rwanda, saudi arabia, scotland,
    senegal, serbia, singapore, slovakia, slovenia, south africa, spain, sri lanka, sudan,
    sweden, switzerland, syria, taiwan, tanzania, thailand, tunisia, turkey, uganda, ukraine,
    united arab emirates, uae, united kingdom, uk, united states, usa, us, america, uruguay,
    uzbekistan, venezuela, vietnam, wales, yemen, zambia, zimbabwe
    """
)

CITIES = _phrases(
    """
    amsterdam, athens, atlanta, auckland, austin, baltimore, bangkok, barcelona, beijing,
    belfast, belgrade, berlin, bern, bilbao, birmingham, bogota, bologna, bordeaux, boston,
    bratislava, brisbane, bristol, brooklyn, brussels, bucharest, budapest, buenos aires, cairo,
    calgary, cambridge, cape town, chicago, cologne, copenhagen, cork, dallas, delhi, denver,
    detroit, dubai, dublin, dusseldorf, edinburgh, florence, frankfurt, geneva, genoa, glasgow,
    gothenburg, hamburg, hanoi, havana, helsinki, ho chi minh city, honolulu, houston, istanbul,
    jakarta, jerusalem, johannesburg, kyiv, kiev, krakow, kuala lumpur, lagos, las vegas, leeds,
    leipzig, lima, lisbon, liverpool, ljubljana, london, los angeles, lyon, madrid, malaga,
    manchester, manila, marseille, melbourne, mexico city, miami, milan, minneapolis, montreal,
    moscow, mumbai, munich, nairobi, naples, new orleans, new york, new york city, nice, oakland,
    osaka, oslo, ottawa, oxford, palermo, paris, perth, philadelphia, phoenix, porto, portland,
    prague, quebec, reykjavik, riga, rio de janeiro, rome, rotterdam, salzburg, san diego,
    san francisco, san jose, santiago, sao paulo, seattle, seoul, seville, shanghai, singapore,
    sofia, stockholm, stuttgart, sydney, taipei, tallinn, tel aviv, tokyo, toronto, toulouse,
    turin, valencia, vancouver, venice, vienna, vilnius, warsaw, washington, wellington, zagreb,
    zurich, silicon valley, bay area, manhattan
    """
)

FIRST_NAMES = _words(
    """
    aaron adam adrian ahmed aisha alan albert alex alexander alexandra alice alicia amanda amelia
    amy ana andrea andrew angela anna anne anthony antonio ava barbara ben benjamin beth betty
    bill bob brandon brian caroline carlos carol catherine charles charlie charlotte chloe chris
    christina christopher claire clara daniel david deborah dennis diana diego dmitri donald
    dorothy edward elena eli elizabeth ella ellen emily emma eric ethan eva evelyn fatima felix
    fiona frank gabriel gary george grace greg hannah harry helen henry hugo ian isaac isabel
    isabella jack jacob james jane janet jason jennifer jenny jessica jim joan joe john jonathan
    jordan jose joseph joshua juan julia julie justin karen kate katie kevin kim laura leo liam
    lily linda lisa liz lucas lucy luis luke maria mark martin mary matt matthew max maya megan
    mia michael michelle mike mohammed mohamed nancy natalie nathan nicole nina noah olivia omar
    oscar pablo patricia paul peter priya rachel raj rebecca richard robert rosa ryan sam samuel
    sandra sara sarah sean sofia sophia sophie stephanie steve steven susan thomas tim timothy tom
    tony victoria william yuki zoe caroline melanie jon gina nate tim joanna deborah evan audrey
    calvin dave maria andrew john jolene
    """
)

ORG_SUFFIXES = _words(
    "inc inc. corp corp. corporation ltd ltd. llc llp plc gmbh ag sa s.a. bv nv co co. company "
    "group holdings labs lab technologies systems university college institute school academy "
    "hospital clinic bank foundation agency association council ministry department studios "
    "partners consulting airlines airways"
)

ACRONYM_STOP = _words(
    "i ok am pm tv fyi asap lol btw re fw fwd cc bcc tbd eta usd eur gbp jpy chf omg idk imo "
    "thx np aka diy faq pdf url id ps pps eod eow ooo rsvp etc no yes hi hey utc gmt cet cest "
    "est pst edt pdt bst pr qa ok'd"
)

# Capitalised words that start sentences (or open emails) and are never names by themselves.
COMMON_CAPS = _words(
    """
    dear hi hello hey thanks thank cheers regards best yes no ok okay sure great cool nice good
    well so but and or also anyway btw today tomorrow yesterday tonight please just maybe
    perhaps really actually oh ah wow hmm sorry congrats congratulations happy merry
    subject from to date sent re fwd meeting note notes reminder update agenda summary action
    items user assistant ai bot system human me you
    """
)

RELATIONS = _words(
    "wife husband partner spouse girlfriend boyfriend fiance fiancee fiancé fiancée son daughter "
    "kid kids child children baby mom mum mother dad father parents brother sister sibling "
    "siblings grandma grandmother grandpa grandfather grandparents aunt uncle cousin niece nephew "
    "friend bestie boss manager colleague coworker roommate flatmate neighbour neighbor family "
    "in-laws stepmother stepfather stepson stepdaughter twin twins grandson granddaughter"
)
CLOSE_RELATIONS = _words(
    "wife husband partner spouse girlfriend boyfriend fiance fiancee son daughter kid kids child "
    "children baby mom mum mother dad father parents brother sister grandma grandmother grandpa "
    "grandfather twin twins best"
)

PROFESSIONS = _words(
    """
    accountant actor architect artist baker barista carpenter cashier chef consultant counselor
    dentist designer developer doctor economist editor electrician engineer farmer firefighter
    freelancer journalist judge lawyer lecturer librarian manager mechanic musician nurse
    paramedic pharmacist photographer physician physicist pilot plumber professor programmer
    psychologist researcher salesperson scientist student surgeon teacher therapist translator
    veterinarian writer analyst founder entrepreneur intern recruiter paralegal
    """
)

LANGUAGES = _words(
    "english spanish french german italian portuguese dutch russian chinese mandarin cantonese "
    "japanese korean arabic hindi turkish polish swedish norwegian danish finnish greek hebrew"
)

# Topic tags: tag -> words (stems are matched by prefix in triage).
TOPICS: dict[str, frozenset[str]] = {
    "food": _words(
        "food eat eating ate dinner lunch breakfast restaurant cook cooking recipe pizza sushi "
        "pasta coffee tea wine beer vegan vegetarian meal cuisine burger dessert chocolate"
    ),
    "health": _words(
        "doctor hospital clinic medication medicine allergy allergic asthma diabetes surgery "
        "therapy therapist sick illness pain diagnosed diagnosis symptoms dentist vaccine health "
        "pregnant pregnancy injury cancer migraine gym workout fitness running run diet sleep"
    ),
    "travel": _words(
        "flight fly flying trip travel travelling traveling vacation holiday hotel airbnb airport "
        "passport visa itinerary train beach tour abroad"
    ),
    "work": _words(
        "work job office boss manager colleague coworker client project deadline meeting salary "
        "promotion career interview hired fired team company startup employer career sprint"
    ),
    "family": _words(
        "wife husband partner son daughter kids children baby mom mum mother dad father parents "
        "brother sister grandma grandmother grandpa grandfather family aunt uncle cousin wedding"
    ),
    "finance": _words(
        "money bank rent mortgage salary invoice bill payment paid pay loan budget savings "
        "invest investment stocks tax taxes price cost refund subscription"
    ),
    "tech": _words(
        "code coding python javascript software app laptop computer server database api bug "
        "deploy github linux programming ai model"
    ),
    "music": _words("music song songs concert guitar piano band album playlist singing sing"),
    "sport": _words(
        "football soccer tennis basketball baseball hockey golf marathon cycling swim swimming "
        "yoga climbing ski skiing match game league"
    ),
    "pets": _words("dog dogs cat cats puppy kitten pet pets vet"),
    "education": _words(
        "school university college course class exam degree study studying studied thesis "
        "phd masters homework lecture"
    ),
    "home": _words(
        "home house apartment flat rent landlord neighbourhood neighborhood address garden kitchen"
    ),
}

SYNONYMS: dict[str, tuple[str, ...]] = {
    "job": ("work", "employer", "career"),
    "work": ("job", "employer"),
    "live": ("home", "reside", "moved"),
    "home": ("house", "live"),
    "house": ("home",),
    "favourite": ("favorite", "like", "love"),
    "favorite": ("favourite", "like", "love"),
    "like": ("love", "enjoy", "favourite"),
    "love": ("like", "enjoy"),
    "enjoy": ("like", "love"),
    "wife": ("partner", "spouse"),
    "husband": ("partner", "spouse"),
    "partner": ("spouse", "wife", "husband"),
    "mom": ("mother", "mum"),
    "mum": ("mother", "mom"),
    "mother": ("mom", "mum"),
    "dad": ("father",),
    "father": ("dad",),
    "kids": ("children",),
    "children": ("kids",),
    "car": ("vehicle",),
    "film": ("movie",),
    "films": ("movies",),
    "movie": ("film",),
    "movies": ("films",),
    "buy": ("purchase", "bought"),
    "bought": ("purchased", "buy"),
    "meeting": ("call", "appointment"),
    "appointment": ("meeting",),
    "trip": ("travel", "vacation"),
    "vacation": ("holiday", "trip"),
    "holiday": ("vacation",),
    "doctor": ("physician", "medical"),
    "sick": ("ill", "illness"),
    "ill": ("sick",),
    "birthday": ("born",),
    "born": ("birthday",),
    "age": ("old", "years"),
    "old": ("age",),
    "name": ("called",),
    "pet": ("dog", "cat"),
    "dog": ("pet",),
    "cat": ("pet",),
    "study": ("studied", "degree", "university"),
    "school": ("university", "college"),
    "hobby": ("enjoy", "like"),
    "hobbies": ("enjoy", "like"),
    "friend": ("friends",),
    "moved": ("relocated", "live"),
    "salary": ("pay", "income"),
    "married": ("wedding", "spouse"),
    "wedding": ("married",),
    "decide": ("decided", "decision"),
    "decided": ("decision", "agreed"),
    "plan": ("planned", "planning"),
    "plans": ("planning",),
    "allergic": ("allergy",),
    "allergy": ("allergic",),
    "language": ("speak", "speaks"),
    "speak": ("language",),
}

HEDGES = _phrases(
    """
    maybe, perhaps, probably, possibly, might, may be, could be, i think, i guess, i believe,
    i suppose, not sure, unsure, i'm not certain, apparently, supposedly, allegedly, rumour,
    rumor, seems, seem, seemed, sort of, kind of, roughly, approximately, likely,
    unlikely, i heard, someone said, if i remember, iirc, afaik, i assume, presumably, guess
"""
)
CERTAINTY = _phrases(
    "definitely, certainly, confirmed, for sure, i know, always, absolutely, officially, "
    "guaranteed, without doubt, verified, booked, signed"
)
VAGUE = _words("something stuff things thing somewhere someone somehow whatever sometime some")

EPISODIC_TIME = _phrases(
    "today, yesterday, this morning, this afternoon, this evening, tonight, last night, "
    "just now, earlier today, this week, right now"
)

INTENSIFIERS = _words(
    "really absolutely totally truly very much so quite actually still anymore any more now "
    "longer also too just honestly seriously definitely"
)
