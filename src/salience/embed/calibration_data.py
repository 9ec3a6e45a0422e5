"""The bundled calibration text set (written for this project) from which
`salience.embed.calibration` measures an embedder's own similarity scale.

Three kinds of material, all short first-person memories of the sort an agent stores:

- `UPDATES`: the same fact about the same subject with a changed value (a move, a new job, a
  reversed decision) — what the contradiction gate must let through;
- `PARAPHRASES`: the same fact reworded — what near-duplicate checks must catch;
- `TOPICS`: groups of four memories about one topic or event (different facts) — what episodic
  clustering must group; a memory of one group and memories of the others are unrelated.

Pairs across different topic groups give the "unrelated" distribution. `REPLIES` are the
assistant's short acknowledgements of the conversation-turn form ("User: …\nAssistant: …").
"""

from __future__ import annotations

UPDATES: tuple[tuple[str, str], ...] = (
    ("I live in Lisbon.", "I moved to Berlin last month."),
    ("I work at Siemens as an engineer.", "I accepted a job offer at Spotify."),
    ("My manager is Helen.", "Since the reorg I report to Marcus."),
    ("We have two kids.", "Our third child was born in March."),
    ("I'm vegetarian.", "I started eating fish again."),
    ("I use vim for everything.", "I switched from vim to VS Code."),
    ("The team standup is at 9:30.", "Standup moves to 10:15 starting Monday."),
    ("My phone number is 555-0142.", "My new phone number is 555-0199."),
    ("The project budget is 40,000 EUR.", "The project budget was cut to 25,000 EUR."),
    ("The report deadline is 12 May.", "The report deadline was pushed to 3 June."),
    ("I love sushi, it's my favourite food.", "I don't like sushi anymore."),
    ("Anna is my girlfriend.", "Anna and I broke up in the spring."),
    ("I drive a blue Toyota.", "I sold the Toyota and bought an electric bike."),
    ("My gym sessions are on Mondays and Thursdays.", "I go to the gym on Tuesdays now."),
    (
        "We chose Postgres for the billing service.",
        "We reversed that: the billing service will use MySQL.",
    ),
    ("I have a golden retriever named Max.", "Max died in October, so we have no dog now."),
    ("I'm training for a half marathon.", "I gave up running after my knee injury."),
    ("My favourite band is Radiohead.", "These days my favourite band is Khruangbin."),
    ("The team offsite is planned for Porto.", "The offsite location changed to Valencia."),
    ("I study law in Coimbra.", "I dropped law and now study architecture."),
)

PARAPHRASES: tuple[tuple[str, str], ...] = (
    (
        "My sister Priya is visiting us next weekend.",
        "Next weekend my sister Priya comes to visit us.",
    ),
    (
        "The vet said Biscuit needs a booster shot.",
        "According to the vet, Biscuit has to get a booster shot.",
    ),
    (
        "We agreed to launch the beta on the first of July.",
        "The beta launch was agreed for July 1st.",
    ),
    ("I'm allergic to peanuts.", "I have a peanut allergy."),
    (
        "The kitchen tap has been leaking since Sunday.",
        "Since Sunday the tap in the kitchen keeps leaking.",
    ),
    (
        "Tom recommended the novel The Overstory to me.",
        "The Overstory is a novel Tom recommended to me.",
    ),
    ("Our flight to Oslo leaves at 7 in the morning.", "The Oslo flight departs at 7 a.m."),
    ("I need to call the bank about the mortgage.", "I have to phone the bank about my mortgage."),
    (
        "The design review found three accessibility issues.",
        "Three accessibility problems came up in the design review.",
    ),
    (
        "My daughter started piano lessons this week.",
        "This week my daughter began taking piano lessons.",
    ),
    (
        "The office will be closed on Friday for maintenance.",
        "On Friday the office is closed because of maintenance work.",
    ),
    ("I prefer tea over coffee in the morning.", "In the mornings I'd rather have tea than coffee."),
    (
        "Lena fixed the login bug before the release.",
        "Before the release, Lena fixed the bug in the login.",
    ),
    ("We're painting the living room green.", "The living room is being painted green."),
    ("The invoice for the new laptop is 1,200 EUR.", "The new laptop's invoice comes to 1200 euros."),
    ("My grandmother turns ninety in August.", "In August my grandma will be 90."),
    (
        "The team decided to drop the mobile app for now.",
        "For now, the team has decided to shelve the mobile app.",
    ),
    (
        "I've been sleeping badly because of the noise upstairs.",
        "The noise from upstairs keeps me from sleeping well.",
    ),
    (
        "My conference talk is scheduled for Thursday afternoon.",
        "My talk at the conference is on Thursday afternoon.",
    ),
    ("Marco lent me his camping tent.", "I borrowed Marco's camping tent."),
)

TOPICS: tuple[tuple[str, ...], ...] = (
    (
        "Biscuit has a vet appointment on Tuesday at 4.",
        "The vet wants to look at Biscuit's sore paw.",
        "I need a new carrier to take Biscuit to the clinic.",
        "Biscuit's vaccination record is in the blue folder.",
    ),
    (
        "The contractor starts tearing out the old kitchen on Monday.",
        "We picked oak cabinets for the new kitchen.",
        "The new kitchen countertop will be delivered in two weeks.",
        "The electrician has to move two sockets behind the stove.",
    ),
    (
        "We booked flights to Tokyo for the second week of April.",
        "Our hotel in Kyoto is near the Gion district.",
        "I want to get a rail pass for the trip around Japan.",
        "We still need to change some money into yen before the Japan trip.",
    ),
    (
        "The landing page for the product launch goes live on Wednesday.",
        "Marketing wants the launch press release by Monday.",
        "The launch demo video still needs subtitles.",
        "Sales asked for a pricing sheet before the launch.",
    ),
    (
        "My knee has been hurting after long runs.",
        "The physiotherapist gave me stretching exercises for my knee.",
        "The MRI of my knee is booked for the 14th.",
        "I'm supposed to avoid stairs until the swelling in my knee goes down.",
    ),
    (
        "Sara and Dev's wedding is in September in Sintra.",
        "I'm giving a toast at Sara and Dev's wedding.",
        "The dress code for the wedding is summer formal.",
        "We need to RSVP for the wedding by the end of the month.",
    ),
    (
        "Leo's school play is on Friday evening.",
        "Leo needs a pirate costume for the school play.",
        "The parent-teacher meeting about Leo is next Thursday.",
        "Leo's teacher says his reading has improved a lot.",
    ),
    (
        "The car makes a rattling noise when I brake.",
        "The garage can look at the car's brakes on Saturday.",
        "The car's annual inspection is due in November.",
        "I should get winter tyres fitted on the car before December.",
    ),
    (
        "We're hosting dinner for eight people on Saturday.",
        "I'm making a mushroom risotto as the main course for the dinner.",
        "Two of the dinner guests are vegan.",
        "I need to borrow extra chairs for the dinner party.",
    ),
    (
        "The database migration is planned for the weekend.",
        "We need a rollback plan in case the database migration fails.",
        "The migration scripts were tested on a copy of the production database.",
        "Customers will see a short downtime during the database migration.",
    ),
    (
        "The tomatoes in the garden are finally turning red.",
        "Slugs have been eating the lettuce in the raised garden bed.",
        "I planted lavender along the garden fence.",
        "The garden hose burst and needs replacing.",
    ),
    (
        "I practise the cello for half an hour every evening.",
        "My cello teacher wants me to learn a Bach suite.",
        "The cello needs new strings before the recital.",
        "The student cello recital is in the church hall on 3 March.",
    ),
)

REPLIES: tuple[str, ...] = (
    "Got it, thanks for telling me.",
    "Okay, I'll keep that in mind.",
    "Noted!",
    "Thanks for the update.",
    "Good to know.",
)
